package dev.flux2.onnx.bundle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The external-data references recorded in a graph, against the files beside it. */
class ExternalDataCheckTest {
    @TempDir
    Path dir;

    private List<String> problems(Map<String, Long> references) {
        return ExternalDataCheck.problems(
                "transformer", new GraphSignature(dir.resolve("t.onnx"), List.of(), List.of(), references));
    }

    @Test
    void presentLargeEnoughShardsPass() throws IOException {
        Files.write(dir.resolve("w.data"), new byte[100]);
        assertEquals(List.of(), problems(Map.of("w.data", 100L)));
    }

    @Test
    void missingTruncatedEscapingAndInvalidReferencesAreEachNamed() throws IOException {
        Files.write(dir.resolve("short.data"), new byte[10]);
        Map<String, Long> refs = new LinkedHashMap<>();
        refs.put("gone.data", 1L);
        refs.put("short.data", 11L);
        refs.put("../outside.data", 1L);
        refs.put("nul\0name.data", 1L);
        List<String> problems = problems(refs);
        assertEquals(4, problems.size(), problems.toString());
        assertTrue(problems.get(0).contains("gone.data") && problems.get(0).contains("missing"), problems.get(0));
        assertTrue(
                problems.get(1).contains("short.data is 10 bytes")
                        && problems.get(1).contains("byte 11"),
                problems.get(1));
        assertTrue(problems.get(2).contains("outside its folder"), problems.get(2));
        assertTrue(
                problems.get(3).contains("not a valid file name")
                        && problems.get(3).contains("graph transformer"),
                problems.get(3));
    }
}
