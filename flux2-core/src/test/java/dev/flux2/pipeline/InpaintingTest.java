package dev.flux2.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.api.InvalidRequestException;
import java.awt.image.BufferedImage;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Mask inpainting through the engine, against diffusers' klein inpaint loop written out here
 * (docs/pipeline-reference.md §15): the init image as reference t = 10, and after every Euler step the latent kept
 * where the mask is black (the init noised to the next sigma, the clean init after the last step).
 */
class InpaintingTest {
    private static final String PROMPT = "a red door";

    /** White on the left half (x &lt; 32) of a 64×48 image, black elsewhere. */
    private static BufferedImage leftHalfMask() {
        BufferedImage mask = new BufferedImage(64, 48, BufferedImage.TYPE_BYTE_GRAY);
        for (int y = 0; y < 48; y++) {
            for (int x = 0; x < 32; x++) {
                mask.getRaster().setSample(x, y, 0, 255);
            }
        }
        return mask;
    }

    @Test
    void blendsEveryStepWithTheInitLatentWhereTheMaskIsBlack() {
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel());
        BufferedImage init = ReferenceMath.testImage(64, 48, 5);
        float[] noise = TextToImageTest.gaussian(128 * 12, 11);
        GenerationResult result;
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            result = engine.generate(GenerationRequest.builder(PROMPT)
                    .initImage(init)
                    .mask(leftHalfMask())
                    .strength(1.0)
                    .noise(noise)
                    .build());
        }
        assertEquals(List.of(), result.first().metadata().warnings(), "the init image still counts at sigma 1");
        assertEquals(64, result.first().image().getWidth());
        assertEquals(48, result.first().image().getHeight());
        float[] x0 = ReferenceMath.pack(backend.encodedLatents.get(0).data(), 128, 3, 4);
        float[] packedNoise = ReferenceMath.pack(noise, 128, 3, 4);
        // the init image conditions as reference 0 (t = 10)
        var setup = backend.sessions.get(0).setup;
        assertArrayEquals(
                concat(ReferenceMath.imageIds(3, 4), ReferenceMath.referenceIds(0, 3, 4)), setup.positionIds());
        assertArrayEquals(x0, setup.referenceTokens());
        // token (i, j) samples the block centre: columns 16j+7, 16j+8 are white for j = 0, 1
        boolean[] repaint = new boolean[12];
        for (int t = 0; t < 12; t++) {
            repaint[t] = t % 4 < 2;
        }
        float[] sigmas = ReferenceMath.sigmas(12, 4);
        List<FakeBackend.VelocityCall> calls = backend.velocityCalls;
        assertEquals(4, calls.size());
        assertArrayEquals(packedNoise, calls.get(0).latent(), "strength 1 starts from the noise");
        for (int k = 0; k < 4; k++) {
            boolean last = k == 3;
            float dt = sigmas[k + 1] - sigmas[k];
            float[] expected = new float[x0.length];
            for (int f = 0; f < expected.length; f++) {
                float stepped = calls.get(k).latent()[f] + dt * calls.get(k).velocity()[f];
                float kept = last ? x0[f] : sigmas[k + 1] * packedNoise[f] + (1f - sigmas[k + 1]) * x0[f];
                expected[f] = repaint[f / 128] ? stepped : kept;
            }
            float[] actual = last
                    ? ReferenceMath.pack(backend.decodedLatents.get(0).data(), 128, 3, 4)
                    : calls.get(k + 1).latent();
            assertArrayEquals(expected, actual, "latent after step " + k);
        }
    }

    @Test
    void defaultStrengthWithAMaskIsDiffusers08() {
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel());
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            GenerationResult result = engine.generate(GenerationRequest.builder(PROMPT)
                    .initImage(ReferenceMath.testImage(64, 48, 5))
                    .mask(leftHalfMask())
                    .seed(2)
                    .build());
            assertEquals(0.8, result.first().metadata().strength().orElseThrow());
            assertEquals(4, result.first().metadata().stepsRun());
        }
    }

    @Test
    void badMasksAreRefusedBeforeAnyModelWork() {
        InvalidRequestException e = assertThrows(
                InvalidRequestException.class,
                () -> GenerationRequest.builder(PROMPT).mask(leftHalfMask()).build());
        assertTrue(e.getMessage().contains("without an init image"), e.getMessage());
        BufferedImage ref = ReferenceMath.testImage(64, 64, 1);
        e = assertThrows(
                InvalidRequestException.class,
                () -> GenerationRequest.builder(PROMPT)
                        .initImage(ReferenceMath.testImage(64, 48, 5))
                        .mask(leftHalfMask())
                        .addReferenceImage(ref)
                        .addReferenceImage(ref)
                        .build());
        assertTrue(e.getMessage().contains("at most 1 reference"), e.getMessage());

        FakeBackend backend = new FakeBackend(FakeModel.distilledModel());
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            GenerationRequest black = GenerationRequest.builder(PROMPT)
                    .initImage(ReferenceMath.testImage(64, 48, 5))
                    .mask(new BufferedImage(64, 48, BufferedImage.TYPE_BYTE_GRAY))
                    .build();
            e = assertThrows(InvalidRequestException.class, () -> engine.generate(black));
            assertTrue(e.getMessage().contains("nothing to repaint"), e.getMessage());
        }
        assertTrue(backend.velocityCalls.isEmpty() && backend.encodedPixels.isEmpty(), backend.calls.toString());
    }

    private static float[] concat(float[] a, float[] b) {
        float[] out = new float[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
