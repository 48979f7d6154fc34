package dev.flux2.testkit;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The per-step transformer graph against the reference, at a square and a non-square size with reference tokens.
 * Single graph, fp32 inside, one fp16 rounding at the output: ≤ 1 fp16 ulp.
 */
class TransformerGraphTest {
    @TempDir
    Path dir;

    @Test
    void matchesReferenceAtTwoSizesWithReferenceTokens() throws Exception {
        SyntheticBundleSpec spec = SyntheticBundleSpec.builder().build();
        SyntheticBundle bundle = SyntheticBundleWriter.write(spec, dir);
        SyntheticReference ref = bundle.reference();
        Random rnd = new Random(7);
        int[][] grids = {{4, 4, 0}, {3, 5, 2}};
        for (int[] g : grids) {
            int gh = g[0];
            int gw = g[1];
            int refs = g[2];
            float[] ids = ReferenceMath.imageIds(gh, gw);
            int tokens = gh * gw;
            for (int i = 0; i < refs; i++) {
                ids = TestData.concat(ids, ReferenceMath.referenceIds(i, 2, 2));
                tokens += 4;
            }
            float[] x = TestData.gaussian(rnd, tokens * 128);
            int l = spec.textSequenceLength();
            float[] ctx = Fp16.rounded(TestData.uniform(rnd, l * spec.contextDim(), -1, 1));
            float sigma = 0.7f;
            float[] expected = ref.velocity(x, ids, sigma, ctx);
            try (OrtHarness ort = OrtHarness.open(bundle.graphFile("transformer"))) {
                ort.fp16("x", x, 1, tokens, 128)
                        .f32("x_ids", ids, 1, tokens, 4)
                        .fp16("timesteps", new float[] {sigma}, 1)
                        .fp16("ctx", ctx, 1, l, spec.contextDim())
                        .f32("ctx_ids", ReferenceMath.textIds(l), 1, l, 4);
                float[] actual = ort.run().get("pred");
                double worst =
                        Agreement.assertClose("pred " + gh + "x" + gw + "+" + refs, expected, actual, Agreement.SINGLE);
                double max = Agreement.maxAbs(expected);
                assertTrue(max > 0.5 && max < 4, "pred should be O(1), max " + max);
                System.out.println("transformer " + gh + "x" + gw + " refs " + refs + ": worst " + worst
                        + " ulps, max |pred| " + max);
            }
        }
    }

    /** The properties the pipeline tests rely on to catch wiring mistakes: each one changes the prediction a lot. */
    @Test
    void predictionDependsOnEveryWiredInput() {
        SyntheticBundleSpec spec = SyntheticBundleSpec.builder().build();
        SyntheticReference ref = new SyntheticReference(spec);
        Random rnd = new Random(3);
        int n = 16;
        float[] x = TestData.gaussian(rnd, n * 128);
        float[] ids = ReferenceMath.imageIds(4, 4);
        float[] ctx = TestData.uniform(rnd, 64 * 32, -1, 1);
        float[] base = ref.velocity(x, ids, 0.5f, ctx);
        double noticeable = 0.05;

        assertTrue(Agreement.maxAbsDiff(base, ref.velocity(x, ids, 0.6f, ctx)) > noticeable, "sigma");
        for (int component = 0; component < 4; component++) {
            float[] changed = ids.clone();
            changed[5 * 4 + component] += 1;
            assertTrue(
                    Agreement.maxAbsDiff(base, ref.velocity(x, changed, 0.5f, ctx)) > noticeable,
                    "id component " + component);
        }
        float[] hw = ids.clone();
        for (int t = 0; t < n; t++) {
            hw[t * 4 + 1] = ids[t * 4 + 2];
            hw[t * 4 + 2] = ids[t * 4 + 1];
        }
        assertTrue(Agreement.maxAbsDiff(base, ref.velocity(x, hw, 0.5f, ctx)) > noticeable, "row/column swap");
        float[] ctx2 = ctx.clone();
        ctx2[10 * 32 + 3] += 0.5f;
        ctx2[11 * 32 + 4] -= 0.5f;
        assertTrue(Agreement.maxAbsDiff(base, ref.velocity(x, ids, 0.5f, ctx2)) > 0.002, "context");
        float[] x2 = x.clone();
        x2[0] += 1;
        float[] other = ref.velocity(x2, ids, 0.5f, ctx);
        assertTrue(
                Agreement.maxAbsDiff(Arrays.copyOfRange(base, 128, 2 * 128), Arrays.copyOfRange(other, 128, 2 * 128))
                        > 0.01,
                "cross-token term: token 0 influences token 1");

        // Reference tokens at offsets 10 vs 20 give different noise-token predictions.
        float[] refTokens = TestData.gaussian(rnd, 4 * 128);
        float[] xr = TestData.concat(x, refTokens);
        float[] pr10 = ref.velocity(xr, TestData.concat(ids, ReferenceMath.referenceIds(0, 2, 2)), 0.5f, ctx);
        float[] pr20 = ref.velocity(xr, TestData.concat(ids, ReferenceMath.referenceIds(1, 2, 2)), 0.5f, ctx);
        assertTrue(
                Agreement.maxAbsDiff(Arrays.copyOfRange(pr10, 0, n * 128), Arrays.copyOfRange(base, 0, n * 128))
                        > noticeable,
                "reference tokens change the noise tokens' prediction");
        assertTrue(
                Agreement.maxAbsDiff(
                                Arrays.copyOfRange(pr10, n * 128, pr10.length),
                                Arrays.copyOfRange(pr20, n * 128, pr20.length))
                        > noticeable,
                "reference offset 10 vs 20");
    }
}
