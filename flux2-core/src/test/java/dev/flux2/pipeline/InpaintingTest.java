package dev.flux2.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.image.LanczosResampler;
import dev.flux2.testkit.ReferenceMath;
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
        // every pixel black, or grey 100 everywhere (not black, but 0 once binarized): refused before model work
        BufferedImage grey = new BufferedImage(64, 48, BufferedImage.TYPE_BYTE_GRAY);
        for (int y = 0; y < 48; y++) {
            for (int x = 0; x < 64; x++) {
                grey.getRaster().setSample(x, y, 0, 100);
            }
        }
        BufferedImage black = new BufferedImage(64, 48, BufferedImage.TYPE_BYTE_GRAY);
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel());
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            for (BufferedImage mask : List.of(black, grey)) {
                for (boolean crop : new boolean[] {false, true}) {
                    GenerationRequest.Builder b = GenerationRequest.builder(PROMPT)
                            .initImage(ReferenceMath.testImage(64, 48, 5))
                            .mask(mask);
                    GenerationRequest.Builder built = crop ? b.paddingMaskCrop(4) : b;
                    if (mask == black) {
                        // No resize can make it white: refused when the request is built (issue #33).
                        e = assertThrows(InvalidRequestException.class, built::build);
                    } else {
                        GenerationRequest request = built.build();
                        e = assertThrows(InvalidRequestException.class, () -> engine.generate(request));
                    }
                    assertTrue(e.getMessage().contains("nothing to repaint"), e.getMessage());
                }
            }
        }
        assertTrue(backend.velocityCalls.isEmpty() && backend.encodedPixels.isEmpty(), backend.calls.toString());
    }

    @Test
    void badMaskCropPaddingIsRefusedWhenTheRequestIsBuilt() {
        BufferedImage init = ReferenceMath.testImage(64, 48, 5);
        InvalidRequestException e = assertThrows(
                InvalidRequestException.class,
                () -> GenerationRequest.builder(PROMPT)
                        .initImage(init)
                        .mask(leftHalfMask())
                        .paddingMaskCrop(-1)
                        .build());
        assertTrue(e.getMessage().contains("paddingMaskCrop must be >= 0 pixels, got -1"), e.getMessage());
        e = assertThrows(
                InvalidRequestException.class,
                () -> GenerationRequest.builder(PROMPT)
                        .initImage(init)
                        .paddingMaskCrop(8)
                        .build());
        assertTrue(e.getMessage().contains("without a mask"), e.getMessage());
        e = assertThrows(
                InvalidRequestException.class,
                () -> GenerationRequest.builder(PROMPT)
                        .initImage(init)
                        .mask(new BufferedImage(32, 24, BufferedImage.TYPE_BYTE_GRAY) {
                            {
                                getRaster().setSample(3, 3, 0, 255);
                            }
                        })
                        .paddingMaskCrop(8)
                        .build());
        assertTrue(e.getMessage().contains("init image's size 64x48, got a mask of 32x24"), e.getMessage());
        // above 1024² the mask must match the capped init image: s = sqrt(1024²/1.1e6), (int(1100·s), int(1000·s))
        BufferedImage big = new BufferedImage(1100, 1000, BufferedImage.TYPE_INT_RGB);
        BufferedImage bigMask = new BufferedImage(1100, 1000, BufferedImage.TYPE_BYTE_GRAY);
        bigMask.getRaster().setSample(10, 10, 0, 255);
        e = assertThrows(
                InvalidRequestException.class,
                () -> GenerationRequest.builder(PROMPT)
                        .initImage(big)
                        .mask(bigMask)
                        .paddingMaskCrop(0)
                        .build());
        assertTrue(
                e.getMessage()
                        .contains("1073x976 (the init image of 1100x1000 after the 1024² area cap), got a mask"
                                + " of 1100x1000"),
                e.getMessage());
    }

    /** White on x in [8, 16), y in [8, 24) of 64×48, black elsewhere. */
    private static BufferedImage boxMask() {
        BufferedImage mask = new BufferedImage(64, 48, BufferedImage.TYPE_BYTE_GRAY);
        for (int y = 8; y < 24; y++) {
            for (int x = 8; x < 16; x++) {
                mask.getRaster().setSample(x, y, 0, 255);
            }
        }
        return mask;
    }

    @Test
    void maskCropGeneratesOnTheRegionAndPastesItBackIntoTheInitImage() {
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel());
        BufferedImage init = ReferenceMath.testImage(64, 48, 5);
        GenerationResult result;
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            result = engine.generate(GenerationRequest.builder(PROMPT)
                    .initImage(init)
                    .mask(boxMask())
                    .paddingMaskCrop(4)
                    .strength(1.0)
                    .seed(7)
                    .build());
        }
        // get_crop_region: bbox (8, 8, 16, 24) padded by 4 → (4, 4, 20, 28), 16×24; working ratio 64/48: desired
        // width 32.0, diff 16 → (−4, 4, 28, 28) → shifted right → (0, 4, 32, 28), 32×24, already 4:3, so the fill
        // resize is a plain Lanczos resize of the crop to 64×48
        BufferedImage crop = init.getSubimage(0, 4, 32, 24);
        assertArrayEquals(
                ReferenceMath.pixels(LanczosResampler.resize(crop, 64, 48)),
                backend.encodedPixels.get(0).data(),
                "the VAE encodes the fill-resized crop");
        BufferedImage out = result.first().image();
        assertEquals(64, out.getWidth(), "the output has the init image's size");
        assertEquals(48, out.getHeight());
        assertEquals(64, result.first().metadata().width());
        int[] generated = ReferenceMath.rgb(
                FakeModel.decode(backend.decodedLatents.get(0)).data(), 64, 48);
        // apply_overlay: the 64×48 result centre-cropped (no resize) to 32×24 at (16, 12), pasted at (0, 4)
        for (int y = 0; y < 48; y++) {
            for (int x = 0; x < 64; x++) {
                boolean repaint = x >= 8 && x < 16 && y >= 8 && y < 24;
                int want = repaint ? generated[(12 + y - 4) * 64 + 16 + x] : init.getRGB(x, y) & 0xFFFFFF;
                assertEquals(want, out.getRGB(x, y) & 0xFFFFFF, "pixel " + x + "," + y);
            }
        }
    }

    @Test
    void severalReferencesFollowTheInitLatentAtTheFirstOnesSize() {
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel());
        BufferedImage first = ReferenceMath.testImage(80, 64, 1);
        BufferedImage second = ReferenceMath.testImage(64, 96, 2);
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            engine.generate(GenerationRequest.builder(PROMPT)
                    .initImage(ReferenceMath.testImage(64, 48, 5))
                    .mask(leftHalfMask())
                    .addReferenceImage(first)
                    .addReferenceImage(second)
                    .seed(1)
                    .build());
        }
        // diffusers preprocesses the list at the first one's size (80×64); the second is centre-cropped to it,
        // left (64 − 80) // 2 = −8, top (96 − 64) // 2 = 16: black in columns 0–7 and 72–79
        assertEquals(3, backend.encodedPixels.size());
        assertArrayEquals(
                ReferenceMath.pixels(first), backend.encodedPixels.get(1).data());
        BufferedImage expected = new BufferedImage(80, 64, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < 64; y++) {
            for (int x = 8; x < 72; x++) {
                expected.setRGB(x, y, second.getRGB(x - 8, y + 16));
            }
        }
        assertArrayEquals(
                ReferenceMath.pixels(expected), backend.encodedPixels.get(2).data());
        var setup = backend.sessions.get(0).setup;
        float[] ids = concat(
                concat(ReferenceMath.imageIds(3, 4), ReferenceMath.referenceIds(0, 3, 4)),
                concat(ReferenceMath.referenceIds(1, 4, 5), ReferenceMath.referenceIds(2, 4, 5)));
        assertArrayEquals(ids, setup.positionIds(), "init t = 10, then the references at t = 20 and 30");
        float[] tokens = concat(
                ReferenceMath.pack(backend.encodedLatents.get(0).data(), 128, 3, 4),
                concat(
                        ReferenceMath.pack(backend.encodedLatents.get(1).data(), 128, 4, 5),
                        ReferenceMath.pack(backend.encodedLatents.get(2).data(), 128, 4, 5)));
        assertArrayEquals(tokens, setup.referenceTokens());
    }

    private static float[] concat(float[] a, float[] b) {
        float[] out = new float[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
