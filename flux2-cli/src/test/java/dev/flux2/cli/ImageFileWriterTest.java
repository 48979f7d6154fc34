package dev.flux2.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.flux2.api.GeneratedImage;
import dev.flux2.api.GenerationMetadata;
import dev.flux2.api.StageTimings;
import dev.flux2.io.PngFiles;
import java.awt.image.BufferedImage;
import java.io.FileOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #33: a full disk while writing the PNG was reported as "IIOException: I/O error writing PNG file!", the
 * operating system's reason hidden in the cause chain. The reason is now the innermost I/O failure's, and no
 * partial file is left.
 */
class ImageFileWriterTest {
    @TempDir
    Path dir;

    private static GeneratedImage image() {
        BufferedImage img = new BufferedImage(64, 64, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < 64; y++) {
            for (int x = 0; x < 64; x++) {
                img.setRGB(x, y, (x * 7919 + y * 104729) & 0xFFFFFF); // noise: the PNG is larger than one buffer
            }
        }
        GenerationMetadata m = new GenerationMetadata(
                "a fox",
                OptionalLong.of(42),
                4,
                4,
                64,
                64,
                1.0,
                OptionalDouble.empty(),
                0,
                false,
                1,
                "klein-test",
                new StageTimings(Map.of(), Duration.ZERO, Duration.ZERO));
        return new GeneratedImage(img, m);
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void theOperatingSystemsReasonIsFoundInImageIosCauseChain() {
        // /dev/full answers every write with ENOSPC, as a full disk does.
        IOException e = assertThrows(IOException.class, () -> {
            try (OutputStream full = new FileOutputStream("/dev/full")) {
                PngFiles.write(image(), full);
            }
        });

        assertEquals("no space left on device", ImageFileWriter.reason(e), e.toString());
    }

    @Test
    void aDiskThatFillsMidWriteIsReportedWithItsReasonAndLeavesNoFile() throws IOException {
        Path target = dir.resolve("fox.png");

        IOException e = assertThrows(
                IOException.class,
                () -> ImageFileWriter.write(image(), target, 0.95f, tmp -> new FillsAfter(tmp, 2048)));

        assertEquals("cannot write " + target + ": no space left on device", e.getMessage());
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(List.of(), left.toList(), "no partial or temporary file");
        }
    }

    /** The temporary file as a disk with {@code room} bytes free: the write past them fails as Linux's does. */
    private static final class FillsAfter extends FilterOutputStream {
        private long room;

        FillsAfter(Path tmp, long room) throws IOException {
            super(Files.newOutputStream(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE));
            this.room = room;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            if (len > room) {
                throw new IOException("No space left on device");
            }
            room -= len;
            out.write(b, off, len);
        }
    }
}
