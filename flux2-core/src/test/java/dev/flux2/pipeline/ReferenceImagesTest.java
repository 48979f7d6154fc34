package dev.flux2.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.spi.PixelTensor;
import dev.flux2.testkit.ReferenceMath;
import java.awt.image.BufferedImage;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Multi-reference editing: reference tokens and ids after the noise tokens, output sliced to N. */
class ReferenceImagesTest {
    private static final String PROMPT = "the cat from image 1 on the sofa from image 2";

    private static float[] expectedTokens(BufferedImage image) {
        PixelTensor pixels = new PixelTensor(ReferenceMath.pixels(image), image.getWidth(), image.getHeight());
        var latent = FakeModel.encode(pixels);
        return ReferenceMath.pack(latent.data(), 128, latent.height(), latent.width());
    }

    private static float[] concat(float[]... parts) {
        int length = 0;
        for (float[] p : parts) {
            length += p.length;
        }
        float[] all = new float[length];
        int offset = 0;
        for (float[] p : parts) {
            System.arraycopy(p, 0, all, offset, p.length);
            offset += p.length;
        }
        return all;
    }

    @Test
    void referencesAreAppendedWithTheirIdsAndOutputTakesTheFirstReferenceSize() {
        FakeModel model = FakeModel.distilledModel();
        FakeBackend backend = new FakeBackend(model);
        BufferedImage first = ReferenceMath.testImage(64, 64, 4); // grid 4x4
        BufferedImage second = ReferenceMath.testImage(96, 64, 5); // grid 4 rows x 6 columns
        GenerationResult result;
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            result = engine.generate(GenerationRequest.builder(PROMPT)
                    .addReferenceImage(first)
                    .addReferenceImage(second)
                    .seed(21)
                    .build());
        }
        assertEquals(64, result.first().image().getWidth(), "size from the first reference");
        assertEquals(64, result.first().image().getHeight());
        assertEquals(2, result.first().metadata().referenceCount());
        assertFalse(result.first().metadata().fused(), "references never run fused");

        var setup = backend.sessions.get(0).setup;
        assertEquals(4, setup.gridHeight());
        assertEquals(4, setup.gridWidth());
        float[] expectedIds = concat(
                ReferenceMath.imageIds(4, 4), ReferenceMath.referenceIds(0, 4, 4), ReferenceMath.referenceIds(1, 4, 6));
        assertArrayEquals(expectedIds, setup.positionIds());
        float[] expectedRefs = concat(expectedTokens(first), expectedTokens(second));
        assertArrayEquals(expectedRefs, setup.referenceTokens(), 1e-6f);
        assertEquals(16 + 24, setup.referenceTokenCount());

        // The transformer was asked only for the N = 16 noise tokens in every step.
        assertEquals(4, backend.velocityCalls.size());
        for (FakeBackend.VelocityCall call : backend.velocityCalls) {
            assertEquals(16 * 128, call.latent().length);
            assertEquals(16 * 128, call.velocity().length);
        }
        float[] initial = ReferenceMath.pack(dev.flux2.math.TorchRandom.randn(21L, 1, 128, 4, 4), 128, 4, 4);
        float text = FakeModel.textScalar(model.tokenize(PROMPT));
        // The sampler check uses the reference tokens that reached the backend (checked just above to 1e-6, the
        // tolerance of the pixel conversion), so that it isolates the loop.
        float[] expected = Simulator.denoise(
                initial,
                ReferenceMath.sigmas(16, 4),
                0,
                new Simulator.Layout(expectedIds, setup.referenceTokens()),
                Simulator.Conditioning.plain(text));
        assertArrayEquals(
                ReferenceMath.unpack(expected, 128, 4, 4),
                backend.decodedLatents.get(0).data());
    }

    @Test
    void explicitSizeWinsOverReferenceSize() {
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel());
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            GenerationResult result = engine.generate(GenerationRequest.builder(PROMPT)
                    .size(32, 48)
                    .addReferenceImage(ReferenceMath.testImage(64, 64, 4))
                    .seed(1)
                    .build());
            assertEquals(32, result.first().image().getWidth());
            assertEquals(48, result.first().image().getHeight());
        }
        var setup = backend.sessions.get(0).setup;
        assertArrayEquals(
                concat(ReferenceMath.imageIds(3, 2), ReferenceMath.referenceIds(0, 4, 4)), setup.positionIds());
    }

    @Test
    void imagesOnAModelWithoutVaeEncoderAreRejectedBeforeAnyWork() {
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel().withoutImageInput());
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            GenerationRequest withReference = GenerationRequest.builder(PROMPT)
                    .addReferenceImage(ReferenceMath.testImage(64, 64, 4))
                    .build();
            InvalidRequestException e =
                    assertThrows(InvalidRequestException.class, () -> engine.generate(withReference));
            assertTrue(e.getMessage().contains("no VAE encoder"), e.getMessage());
            GenerationRequest withInit = GenerationRequest.builder(PROMPT)
                    .initImage(ReferenceMath.testImage(64, 64, 4))
                    .build();
            e = assertThrows(InvalidRequestException.class, () -> engine.generate(withInit));
            assertTrue(e.getMessage().contains("no VAE encoder"), e.getMessage());
            assertTrue(e.getMessage().contains("--component vae-encoder="), e.getMessage());
            assertTrue(e.getMessage().contains("hlhc/FLUX.2-klein-4B-onnx"), e.getMessage());
        }
        assertEquals(List.of("close"), backend.calls);
    }
}
