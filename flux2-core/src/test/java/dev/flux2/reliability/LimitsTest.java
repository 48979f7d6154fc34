package dev.flux2.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.ImageFiles;
import dev.flux2.api.GenerationLimits;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.InvalidImageException;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.pipeline.FakeBackend;
import dev.flux2.pipeline.FakeModel;
import dev.flux2.pipeline.GenerationEngine;
import dev.flux2.testkit.ReferenceMath;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Failure class "no resource limits": a size, step count, image count, reference count or input image beyond the
 * limits is refused with an {@link InvalidRequestException} naming the limit and the value, before any backend call
 * and (for image files) before any pixel is decoded.
 */
class LimitsTest {
    @TempDir
    Path dir;

    @Test
    void hugeSizesAndStepCountsAreRefusedBeforeAnyBackendCall() {
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel());
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            InvalidRequestException size = assertThrows(
                    InvalidRequestException.class,
                    () -> engine.generate(GenerationRequest.builder("x")
                            .size(16384, 16384)
                            .seed(1)
                            .build()));
            assertTrue(
                    size.getMessage().contains("maxSide") && size.getMessage().contains("16384"), size.getMessage());
            InvalidRequestException steps = assertThrows(
                    InvalidRequestException.class,
                    () -> engine.generate(GenerationRequest.builder("x")
                            .steps(100_000_000)
                            .seed(1)
                            .build()));
            assertTrue(
                    steps.getMessage().contains("maxSteps")
                            && steps.getMessage().contains("100000000"),
                    steps.getMessage());
            InvalidRequestException images = assertThrows(
                    InvalidRequestException.class,
                    () -> engine.generate(GenerationRequest.builder("x")
                            .numImages(1000)
                            .seed(1)
                            .build()));
            assertTrue(images.getMessage().contains("maxImages"), images.getMessage());
        }
        assertEquals(List.of("close"), backend.calls, "refused before any backend call");
    }

    @Test
    void explicitLimitsReplaceTheDefaultsAndNameThemselves() {
        GenerationLimits limits = GenerationLimits.builder()
                .maxPixels(64 * 64)
                .maxReferences(1)
                .maxSteps(8)
                .build();
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel());
        try (GenerationEngine engine = new GenerationEngine(backend, limits)) {
            InvalidRequestException pixels = assertThrows(
                    InvalidRequestException.class,
                    () -> engine.generate(
                            GenerationRequest.builder("x").size(128, 64).seed(1).build()));
            assertTrue(pixels.getMessage().contains("maxPixels = 4096"), pixels.getMessage());
            InvalidRequestException refs = assertThrows(
                    InvalidRequestException.class,
                    () -> engine.generate(GenerationRequest.builder("x")
                            .addReferenceImage(ReferenceMath.testImage(64, 64, 1))
                            .addReferenceImage(ReferenceMath.testImage(64, 64, 2))
                            .seed(1)
                            .build()));
            assertTrue(refs.getMessage().contains("maxReferences = 1"), refs.getMessage());
            // The model's default step count (4) is within 8; 9 is not.
            assertThrows(
                    InvalidRequestException.class,
                    () -> engine.generate(
                            GenerationRequest.builder("x").steps(9).seed(1).build()));
        }
        assertThrows(
                InvalidRequestException.class,
                () -> GenerationLimits.builder().maxSteps(0).build());
    }

    @Test
    void theModelsOwnDefaultsAlwaysPassTheDefaultLimits() {
        GenerationLimits limits = GenerationLimits.builder().maxPixels(256).build();
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel());
        try (GenerationEngine engine = new GenerationEngine(backend, limits)) {
            // An explicit maxPixels is kept, even below the model's default size: the caller asked for it.
            assertEquals(256, engine.limits().maxPixels());
        }
        try (GenerationEngine engine = new GenerationEngine(new FakeBackend(FakeModel.distilledModel()))) {
            assertTrue(engine.limits().maxSteps() >= 4 * engine.modelInfo().defaultSteps());
            engine.generate(GenerationRequest.builder("x").seed(1).build());
        }
    }

    /** A 20000×20000 PNG is refused from its header: the file holds no pixel data, so decoding would fail anyway. */
    @Test
    void anImageFileLargerThanTheInputLimitIsRefusedFromItsHeader() throws IOException {
        Path png = dir.resolve("huge.png");
        writePngHeader(png, 20_000, 20_000);
        InvalidImageException e = assertThrows(
                InvalidImageException.class,
                () -> GenerationRequest.builder("x")
                        .initImage(ImageFiles.read(png, "init image"))
                        .build());
        assertTrue(e.getMessage().contains(png.toString()), e.getMessage());
        assertTrue(e.getMessage().contains("maxInputSide") && e.getMessage().contains("20000x20000"), e.getMessage());

        Path wide = dir.resolve("wide.png");
        writePngHeader(wide, 4000, 4000);
        GenerationLimits small =
                GenerationLimits.builder().maxInputPixels(1000 * 1000).build();
        InvalidImageException pixels = assertThrows(
                InvalidImageException.class,
                () -> GenerationRequest.builder("x")
                        .limits(small)
                        .addReferenceImage(ImageFiles.read(wide, "reference image 0", small))
                        .build());
        assertTrue(pixels.getMessage().contains("maxInputPixels = 1000000"), pixels.getMessage());
    }

    @Test
    void aCorruptImageFileNamesTheFileAndTheCause() throws IOException {
        Path png = dir.resolve("truncated.png");
        writePngHeader(png, 64, 64);
        InvalidImageException e = assertThrows(
                InvalidImageException.class,
                () -> GenerationRequest.builder("x")
                        .initImage(ImageFiles.read(png, "init image"))
                        .build());
        assertTrue(
                e.getMessage().contains(png.toString()) && e.getMessage().contains("cannot be decoded: "),
                e.getMessage());
    }

    /** Signature, IHDR (8-bit RGB) and IEND: a header that promises pixels the file does not hold. */
    static void writePngHeader(Path file, int width, int height) throws IOException {
        try (OutputStream raw = Files.newOutputStream(file);
                DataOutputStream out = new DataOutputStream(raw)) {
            out.write(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'});
            java.io.ByteArrayOutputStream ihdr = new java.io.ByteArrayOutputStream();
            DataOutputStream d = new DataOutputStream(ihdr);
            d.writeInt(width);
            d.writeInt(height);
            d.write(new byte[] {8, 2, 0, 0, 0});
            chunk(out, "IHDR", ihdr.toByteArray());
            chunk(out, "IEND", new byte[0]);
        }
    }

    private static void chunk(DataOutputStream out, String type, byte[] data) throws IOException {
        byte[] t = type.getBytes(StandardCharsets.US_ASCII);
        out.writeInt(data.length);
        out.write(t);
        out.write(data);
        CRC32 crc = new CRC32();
        crc.update(t);
        crc.update(data);
        out.writeInt((int) crc.getValue());
    }
}
