package dev.flux2.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** The typed readings of the detail keys applications act on (issue #28: the CLI no longer parses them itself). */
class ModelSummaryTest {
    private static ModelSummary withDetails(Map<String, String> details) {
        return new ModelSummary(Path.of("/models/m"), "test", "v", List.of(), List.of(), details);
    }

    @Test
    void theDetailsAreReadUnderTheirWireNames() {
        ModelSummary s = withDetails(Map.of(
                "problems", "a shard is short; a graph is missing",
                "parts_complete", "false",
                "layout", "hlhc",
                "tokenizer_dir", "tok",
                "text_seq_len", "512"));
        assertEquals(Optional.of("a shard is short; a graph is missing"), s.problems());
        assertFalse(s.partsComplete());
        assertEquals(Optional.of("hlhc"), s.layout());
        assertEquals(Optional.of("tok"), s.tokenizerDir());
        assertEquals(OptionalInt.of(512), s.textSequenceLength());
    }

    @Test
    void noneAndAbsentDetailsReadAsNothingWrong() {
        ModelSummary none = withDetails(Map.of("problems", "none", "parts_complete", "true"));
        assertEquals(Optional.empty(), none.problems());
        assertTrue(none.partsComplete());
        ModelSummary empty = withDetails(Map.of());
        assertEquals(Optional.empty(), empty.problems());
        assertTrue(empty.partsComplete());
        assertEquals(Optional.empty(), empty.layout());
        assertEquals(Optional.empty(), empty.tokenizerDir());
        assertEquals(OptionalInt.empty(), empty.textSequenceLength());
    }

    @Test
    void aTextSequenceLengthThatIsNoPositiveIntegerIsAModelError() {
        for (String bad : List.of("abc", "0", "-3", "1e3")) {
            ModelLoadException e = assertThrows(
                    ModelLoadException.class,
                    () -> withDetails(Map.of("text_seq_len", bad)).textSequenceLength());
            assertEquals(
                    "backend 'test' reports text_seq_len '" + bad + "' for " + Path.of("/models/m")
                            + ", expected a positive integer",
                    e.getMessage());
        }
    }
}
