package dev.flux2.testkit;

import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnxruntime.OrtSession.SessionOptions.OptLevel;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Both fused conventions against the reference and against four per-step runs.
 *
 * <p>Tolerance: the fused graph rounds to fp16 at eight internal boundaries (step inputs and velocities). An fp32
 * difference can flip one rounding of a velocity of magnitude up to 4 by one ulp (≤ 2^-9); scaled by |dt| ≤ 0.35
 * and carried through the remaining steps (gain ≈ 1–2 per step) that stays well below 2^-9 in the final latent,
 * so the bound is 2 fp16 ulps of the value + 2^-9 absolute (measured: ≤ 7.4e-4). Four per-step graph runs with
 * an fp32 latent reproduce the fused graph's arithmetic exactly (measured difference 0).
 */
class FusedTransformerGraphTest {

    private static final float[] SIGMAS = {1f, 0.9f, 0.75f, 0.4f, 0f};

    @TempDir
    Path dir;

    @Test
    void engineConventionMatchesReferenceAndPerStepRuns() throws Exception {
        check(FusedConvention.ENGINE, OptLevel.ALL_OPT);
        check(FusedConvention.ENGINE, OptLevel.NO_OPT);
    }

    @Test
    void listedConventionMatchesReferenceAndPerStepRuns() throws Exception {
        check(FusedConvention.LISTED, OptLevel.ALL_OPT);
        check(FusedConvention.LISTED, OptLevel.NO_OPT);
    }

    private void check(FusedConvention convention, OptLevel level) throws Exception {
        SyntheticBundleSpec spec = SyntheticBundleSpec.builder()
                .fused(convention)
                .defaultSize(80, 48)
                .build();
        SyntheticBundle bundle = SyntheticBundleWriter.write(spec, dir.resolve(convention + "-" + level));
        SyntheticReference ref = bundle.reference();
        int gh = 3;
        int gw = 5;
        int n = gh * gw;
        Random rnd = new Random(11);
        float[] x = TestData.gaussian(rnd, n * 128);
        float[] ids = ReferenceMath.imageIds(gh, gw);
        int l = spec.textSequenceLength();
        int d = spec.contextDim();
        float[] ctx = Fp16.rounded(TestData.uniform(rnd, l * d, -1, 1));
        float[] textIds = ReferenceMath.textIds(l);
        float[] expected = ref.fusedLatent(x, ids, SIGMAS, ctx);

        float[] actual;
        try (OrtHarness ort = OrtHarness.open(bundle.graphFile("transformer_fused_4step"), level)) {
            ort.fp16("x", x, 1, n, 128)
                    .f32("x_ids", ids, 1, n, 4)
                    .fp16("ctx", ctx, 1, l, d)
                    .f32("ctx_ids", textIds, 1, l, 4);
            if (convention == FusedConvention.ENGINE) {
                for (int i = 0; i < 4; i++) {
                    ort.fp16("timestep_" + i, new float[] {SIGMAS[i]}, 1);
                    ort.f32("dt_" + i, new float[] {SIGMAS[i + 1] - SIGMAS[i]}, 1);
                }
            } else {
                ort.fp16("timesteps", new float[] {SIGMAS[0], SIGMAS[1], SIGMAS[2], SIGMAS[3]}, 4);
            }
            actual = ort.run().get("latent");
        }
        double worst = Agreement.assertClose("latent " + convention + " " + level, expected, actual, Agreement.CHAIN);
        System.out.println("fused " + convention + " " + level + ": worst " + worst + " ulps, max |latent| "
                + Agreement.maxAbs(expected) + ", moved " + Agreement.maxAbsDiff(expected, Fp16.rounded(x)));
        assertTrue(Agreement.maxAbsDiff(expected, Fp16.rounded(x)) > 0.3, "four steps must move the latent");

        // Four per-step graph runs with an fp32 latent give the same result within the same tolerance.
        float[] latent = Fp16.rounded(x);
        try (OrtHarness ort = OrtHarness.open(bundle.graphFile("transformer"), level)) {
            ort.f32("x_ids", ids, 1, n, 4).fp16("ctx", ctx, 1, l, d).f32("ctx_ids", textIds, 1, l, 4);
            for (int i = 0; i < 4; i++) {
                ort.fp16("x", latent, 1, n, 128).fp16("timesteps", new float[] {SIGMAS[i]}, 1);
                float[] v = ort.run().get("pred");
                float dt = convention == FusedConvention.ENGINE
                        ? SIGMAS[i + 1] - SIGMAS[i]
                        : Fp16.round(SIGMAS[i + 1]) - Fp16.round(SIGMAS[i]);
                for (int k = 0; k < latent.length; k++) {
                    latent[k] += dt * v[k];
                }
            }
        }
        Agreement.assertClose("per-step vs fused " + convention, actual, Fp16.rounded(latent), Agreement.EXACT);
    }
}
