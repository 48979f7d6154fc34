package dev.flux2.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The split VAE decoder graphs one by one and chained with chunked attention, and the VAE encoder, against the
 * reference at a square and a non-square size (S = 64 and S = 60 with chunk 64 and 16, so 60 is not a multiple
 * of the chunk). Single graphs: ≤ 1 fp16 ulp + 2^-17. Whole chain: every stage is fed ORT's own previous output,
 * so each comparison is again a single graph; the end-to-end chain versus {@link SyntheticReference#decodeLatent}
 * accumulates one possible flip per boundary (six of them), bounded by 2 ulps + 2^-9.
 */
class VaeGraphsTest {
    private static final int CR = SyntheticDims.RESIDUAL_CHANNELS;

    @TempDir
    Path dir;

    @Test
    void squareSizeWholeAttention() throws Exception {
        checkChain(SyntheticBundleSpec.builder().build(), 4, 4);
    }

    @Test
    void nonSquareSizeWithPartialLastChunk() throws Exception {
        checkChain(
                SyntheticBundleSpec.builder()
                        .vaeChunkSize(16)
                        .vaeHeadDim(12)
                        .defaultSize(80, 48)
                        .build(),
                3,
                5);
    }

    private void checkChain(SyntheticBundleSpec spec, int gh, int gw) throws Exception {
        SyntheticBundle bundle = SyntheticBundleWriter.write(spec, dir.resolve(gh + "x" + gw));
        SyntheticReference ref = bundle.reference();
        int hd = spec.vaeHeadDim();
        int s = 4 * gh * gw;
        float[] z = TestData.gaussian(new Random(gh * 31 + gw), 128 * gh * gw);

        Map<String, float[]> pre;
        try (OrtHarness ort = OrtHarness.open(bundle.graphFile("vae_decoder_pre"))) {
            pre = ort.fp16("z", z, 1, 128, gh, gw).run();
        }
        VaeDecoderPreOutputs expectedPre = ref.decoderPre(z, gw, gh);
        single("residual", expectedPre.residual(), pre.get(TensorNames.VAE_RESIDUAL));
        single("q", expectedPre.query(), pre.get(TensorNames.VAE_QUERY));
        single("kt", expectedPre.keyTransposed(), pre.get(TensorNames.VAE_KEY_TRANSPOSED));
        single("v", expectedPre.value(), pre.get(TensorNames.VAE_VALUE));
        assertEquals(CR * s, pre.get(TensorNames.VAE_RESIDUAL).length);

        // Chunked attention exactly as the pipeline does it: zero-padded last chunk, keep the valid rows.
        int chunk = spec.vaeChunkSize();
        float[] q = pre.get(TensorNames.VAE_QUERY);
        float[] kt = pre.get(TensorNames.VAE_KEY_TRANSPOSED);
        float[] v = pre.get(TensorNames.VAE_VALUE);
        float[] attn = new float[s * hd];
        try (OrtHarness ort = OrtHarness.open(bundle.graphFile("vae_decoder_attn_chunk"))) {
            ort.fp16("kt", kt, 1, 1, hd, s).fp16("v", v, 1, 1, s, hd);
            for (int start = 0; start < s; start += chunk) {
                int rows = Math.min(chunk, s - start);
                float[] qChunk = new float[chunk * hd];
                System.arraycopy(q, start * hd, qChunk, 0, rows * hd);
                float[] out = ort.fp16("q_chunk", qChunk, 1, 1, chunk, hd).run().get("attn_chunk");
                System.arraycopy(out, 0, attn, start * hd, rows * hd);
            }
        }
        float[] expectedAttn = ref.attentionRows(q, kt, v);
        single("attention", expectedAttn, attn);
        assertAttentionIsNotFlat(q, kt, s, hd);

        float[] x;
        try (OrtHarness ort = OrtHarness.open(bundle.graphFile("vae_decoder_post_stage_0"))) {
            x = ort.fp16(TensorNames.VAE_RESIDUAL, pre.get(TensorNames.VAE_RESIDUAL), 1, CR, 2 * gh, 2 * gw)
                    .fp16(TensorNames.VAE_ATTENTION, attn, 1, 1, s, hd)
                    .run()
                    .get(TensorNames.VAE_STAGE0_OUT);
        }
        single("stage0", ref.postStage0(pre.get(TensorNames.VAE_RESIDUAL), attn, gw, gh), x);
        x = stage(
                bundle,
                1,
                TensorNames.VAE_STAGE0_OUT,
                x,
                SyntheticDims.STAGE0_CHANNELS,
                8 * gh,
                8 * gw,
                ref.postStage1(x, gw, gh));
        x = stage(
                bundle,
                2,
                TensorNames.VAE_STAGE1_OUT,
                x,
                SyntheticDims.STAGE1_CHANNELS,
                16 * gh,
                16 * gw,
                ref.postStage2(x, gw, gh));
        float[] image = stage(
                bundle,
                3,
                TensorNames.VAE_STAGE2_OUT,
                x,
                SyntheticDims.STAGE2_CHANNELS,
                16 * gh,
                16 * gw,
                ref.postStage3(x, gw, gh));
        assertEquals(3 * 256 * gh * gw, image.length);

        float[] expectedImage = ref.decodeLatent(z, gw, gh);
        double worst = Agreement.assertClose("chained image", expectedImage, image, Agreement.CHAIN);
        System.out.println("VAE chain " + gh + "x" + gw + ": worst " + worst + " ulps, max diff "
                + Agreement.maxAbsDiff(expectedImage, image) + ", image range " + range(image));
        assertTrue(Agreement.maxAbs(image) < 1.0001, "image in [-1, 1]");
        assertTrue(saturatedFraction(image) < 0.05, "tanh must not saturate, else differences hide");
    }

    private float[] stage(
            SyntheticBundle bundle, int i, String input, float[] x, int channels, int h, int w, float[] expected)
            throws Exception {
        try (OrtHarness ort = OrtHarness.open(bundle.graphFile("vae_decoder_post_stage_" + i))) {
            Map<String, float[]> out = ort.fp16(input, x, 1, channels, h, w).run();
            float[] y = out.values().iterator().next();
            single("stage" + i, expected, y);
            return y;
        }
    }

    @Test
    void decoderSeesLayoutMistakes() {
        SyntheticReference ref =
                new SyntheticReference(SyntheticBundleSpec.builder().build());
        int gh = 4;
        int gw = 4;
        float[] tokens = TestData.gaussian(new Random(5), 16 * 128);
        float[] latent = ReferenceMath.unpack(tokens, 128, gh, gw);
        float[] image = ref.decodeLatent(latent, gw, gh);
        // Tokens fed without the token → NCHW transpose.
        assertTrue(Agreement.maxAbsDiff(image, ref.decodeLatent(tokens, gw, gh)) > 0.1, "untransposed tokens");
        // Spatially transposed latent (rows and columns swapped).
        float[] transposed = new float[latent.length];
        for (int c = 0; c < 128; c++) {
            for (int r = 0; r < gh; r++) {
                for (int col = 0; col < gw; col++) {
                    transposed[(c * gh + col) * gw + r] = latent[(c * gh + r) * gw + col];
                }
            }
        }
        float[] other = ref.decodeLatent(transposed, gw, gh);
        float[] otherTransposedBack = new float[other.length];
        int h = 16 * gh;
        for (int c = 0; c < 3; c++) {
            for (int r = 0; r < h; r++) {
                for (int col = 0; col < h; col++) {
                    otherTransposedBack[(c * h + col) * h + r] = other[(c * h + r) * h + col];
                }
            }
        }
        assertTrue(Agreement.maxAbsDiff(image, other) > 0.1, "transposed latent gives another image");
        assertTrue(Agreement.maxAbsDiff(image, otherTransposedBack) > 0.1, "and not just the transposed image");
        assertTrue(Arrays.equals(latent, ReferenceMath.unpack(ReferenceMath.pack(latent, 128, gh, gw), 128, gh, gw)));
    }

    @Test
    void encoderMatchesReferenceAtTwoSizes() throws Exception {
        SyntheticBundle bundle =
                SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), dir);
        SyntheticReference ref = bundle.reference();
        for (int[] size : new int[][] {{64, 64}, {80, 48}}) {
            int w = size[0];
            int h = size[1];
            float[] image = TestData.uniform(new Random(w + h), 3 * w * h, -1, 1);
            float[] expected = ref.encodeImage(image, w, h);
            try (OrtHarness ort = OrtHarness.open(bundle.graphFile("vae_encoder"))) {
                float[] z = ort.fp16("image", image, 1, 3, h, w).run().get("z");
                single("z " + w + "x" + h, expected, z);
                assertEquals(128 * (h / 16) * (w / 16), z.length);
            }
            // Every 8x8 quadrant of a 16x16 patch lands in different channels.
            float[] shifted = image.clone();
            for (int c = 0; c < 3; c++) {
                for (int y = 0; y < 8; y++) {
                    for (int x = 0; x < 8; x++) {
                        shifted[(c * h + y) * w + x] += 0.5f;
                    }
                }
            }
            float[] other = ref.encodeImage(shifted, w, h);
            assertTrue(Agreement.maxAbsDiff(expected, other) > 0.05, "quadrant change visible");
        }
    }

    private static void single(String what, float[] expected, float[] actual) {
        Agreement.assertClose(what, expected, actual, Agreement.SINGLE);
    }

    /** Attention must really mix rows: the largest softmax weight of a row is far from uniform and from one-hot. */
    private static void assertAttentionIsNotFlat(float[] q, float[] kt, int s, int hd) {
        double maxWeightSum = 0;
        for (int r = 0; r < s; r++) {
            double[] e = new double[s];
            double sum = 0;
            double max = 0;
            for (int j = 0; j < s; j++) {
                double dot = 0;
                for (int i = 0; i < hd; i++) {
                    dot += q[r * hd + i] * kt[i * s + j];
                }
                e[j] = Math.exp(dot);
                sum += e[j];
            }
            for (int j = 0; j < s; j++) {
                max = Math.max(max, e[j] / sum);
            }
            maxWeightSum += max;
        }
        double meanMax = maxWeightSum / s;
        assertTrue(meanMax > 3.0 / s && meanMax < 0.9, "mean max attention weight " + meanMax);
    }

    private static double saturatedFraction(float[] image) {
        int n = 0;
        for (float v : image) {
            if (Math.abs(v) > 0.99f) {
                n++;
            }
        }
        return n / (double) image.length;
    }

    private static String range(float[] a) {
        float min = Float.MAX_VALUE;
        float max = -Float.MAX_VALUE;
        for (float v : a) {
            min = Math.min(min, v);
            max = Math.max(max, v);
        }
        return "[" + min + ", " + max + "]";
    }
}
