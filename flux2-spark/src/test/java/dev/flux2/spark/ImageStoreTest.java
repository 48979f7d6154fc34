package dev.flux2.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.GeneratedImage;
import dev.flux2.api.GenerationMetadata;
import dev.flux2.api.StageTimings;
import dev.flux2.io.PngFiles;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The write protocol on Hadoop's local file system, without Spark. */
class ImageStoreTest {
    private static final Configuration CONF = new Configuration();
    private static final TaskAttempt FIRST = new TaskAttempt(0, "t1-abc");

    @TempDir
    Path out;

    @AfterEach
    void noFault() {
        WriteFaults.reset();
    }

    static byte[] png(String prompt, long seed, int rgb) {
        BufferedImage img = new BufferedImage(16, 16, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < 16; y++) {
            for (int x = 0; x < 16; x++) {
                img.setRGB(x, y, rgb);
            }
        }
        GenerationMetadata m = new GenerationMetadata(
                prompt,
                OptionalLong.of(seed),
                4,
                4,
                16,
                16,
                1.0f,
                OptionalDouble.empty(),
                0,
                false,
                0,
                "test",
                new StageTimings(Map.of(), Duration.ZERO, Duration.ZERO));
        return PngFiles.encode(new GeneratedImage(img, m));
    }

    private static RowRequest request(String id, String prompt, Long seed) {
        return new RowRequest(new RowId(id), prompt, seed, null, null, null, null, null, null, List.of());
    }

    private List<String> names() throws IOException {
        try (Stream<Path> s = Files.list(out.resolve("images"))) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void writesTheImageUnderItsIdWithNoOtherFile() throws IOException {
        ImageStore store = ImageStore.open(out.toString(), CONF);
        RowRequest r = request("p1", "a fox", 7L);
        byte[] bytes = png("a fox", 7, 0x123456);
        org.apache.hadoop.fs.Path path = store.write(r.id(), bytes, t -> SameRequest.matches(t, r), FIRST);
        assertEquals("file:" + out.resolve("images/p1.png"), path.toString());
        assertArrayEquals(bytes, Files.readAllBytes(out.resolve("images/p1.png")));
        assertEquals(List.of("p1.png"), names(), "no temporary or .crc file");
        assertTrue(store.existing(r.id()).filter(t -> SameRequest.matches(t, r)).isPresent());
    }

    @Test
    void aFolderAtTheImagePathIsRefusedAndNothingIsLeftInIt() throws IOException {
        ImageStore store = ImageStore.open(out.toString(), CONF);
        RowRequest r = request("p1", "a fox", 7L);
        Path folder = Files.createDirectories(out.resolve("images/p1.png"));
        dev.flux2.api.InvalidRequestException e = assertThrows(
                dev.flux2.api.InvalidRequestException.class,
                () -> store.write(r.id(), png("a fox", 7, 1), t -> true, FIRST));
        assertTrue(e.getMessage().contains("p1.png is a folder"), e.getMessage());
        try (var inside = Files.list(folder)) {
            assertEquals(List.of(), inside.toList(), "nothing written into the folder");
        }
        assertEquals(List.of("p1.png"), names(), "no temporary file beside it");
    }

    @Test
    void aFailureAfterTheTemporaryFileLeavesNothing() throws IOException {
        ImageStore store = ImageStore.open(out.toString(), CONF);
        RowRequest r = request("p1", "a fox", 7L);
        Path[] seen = new Path[1];
        WriteFaults.install((id, tmp, attempt) -> {
            seen[0] = Path.of(tmp.toUri());
            assertTrue(Files.isRegularFile(seen[0]), "the temporary file is written before the fault");
            throw new IOException("injected");
        });
        assertThrows(IOException.class, () -> store.write(r.id(), png("a fox", 7, 1), t -> true, FIRST));
        assertEquals(".p1.png.t1-abc.tmp", seen[0].getFileName().toString());
        assertEquals(List.of(), names(), "neither the image nor the temporary file");
    }

    @Test
    void aCompleteImageOfTheSameRequestIsFoundAndAnotherRequestIsNot() throws IOException {
        ImageStore store = ImageStore.open(out.toString(), CONF);
        RowRequest r = request("p1", "a fox", null);
        store.write(r.id(), png("a fox", r.effectiveSeed(), 1), t -> true, FIRST);
        Map<String, String> text = store.existing(r.id()).orElseThrow();
        assertTrue(SameRequest.matches(text, r));
        assertFalse(SameRequest.matches(text, request("p1", "a cat", null)), "another prompt");
        assertFalse(SameRequest.matches(text, request("p1", "a fox", 8L)), "another seed");
        assertFalse(SameRequest.matches(
                text, new RowRequest(r.id(), "a fox", null, 32, null, null, null, null, null, List.of())));
        assertTrue(SameRequest.matches(
                text, new RowRequest(r.id(), "a fox", null, 16, 16, 4, 1.0, null, null, List.of())));
    }

    @Test
    void aTruncatedImageIsNotCompleteAndIsReplaced() throws IOException {
        ImageStore store = ImageStore.open(out.toString(), CONF);
        RowRequest r = request("p1", "a fox", 7L);
        byte[] good = png("a fox", 7, 0x00ff00);
        Files.write(out.resolve("images/p1.png"), Arrays.copyOf(good, good.length - 20));
        assertTrue(store.existing(r.id()).isEmpty(), "truncated: no IEND");
        store.write(r.id(), good, t -> SameRequest.matches(t, r), FIRST);
        assertArrayEquals(good, Files.readAllBytes(out.resolve("images/p1.png")));
        assertEquals(List.of("p1.png"), names());
    }

    @Test
    void staleTemporaryFilesAreDeletedAndImagesKept() throws IOException {
        ImageStore store = ImageStore.open(out.toString(), CONF);
        RowRequest r = request("p1", "a fox", 7L);
        store.write(r.id(), png("a fox", 7, 1), t -> true, FIRST);
        Files.writeString(out.resolve("images/.p2.png.t9-dead.tmp"), "partial");
        Files.writeString(out.resolve("images/notes.txt"), "kept");
        assertEquals(1, ImageStore.deleteTemporaryFiles(out.toString(), CONF));
        assertEquals(List.of("notes.txt", "p1.png"), names());
    }
}
