package dev.flux2.pipeline;

import dev.flux2.spi.LatentGrid;
import dev.flux2.testkit.ReferenceMath;

/** The test's own sampler over {@link FakeModel}: what the engine should have computed. */
final class Simulator {
    private Simulator() {}

    /** Guidance of a simulated run: the negative text scalar is used only when {@code negativeText != null}. */
    record Conditioning(float positiveText, Float negativeText, float scale) {
        static Conditioning plain(float text) {
            return new Conditioning(text, null, 1f);
        }
    }

    /** Token layout of a simulated run. */
    record Layout(float[] ids, float[] referenceTokens) {}

    /**
     * Euler over the given sigmas from {@code start}, with CFG when a negative text is given.
     *
     * @return the final packed latent
     */
    static float[] denoise(float[] initialTokens, float[] sigmas, int start, Layout layout, Conditioning text) {
        float[] x = initialTokens.clone();
        float[] v = new float[x.length];
        float[] vNeg = new float[x.length];
        for (int i = start; i < sigmas.length - 1; i++) {
            FakeModel.velocity(x, sigmas[i], layout.ids(), layout.referenceTokens(), text.positiveText(), v);
            if (text.negativeText() != null) {
                FakeModel.velocity(x, sigmas[i], layout.ids(), layout.referenceTokens(), text.negativeText(), vNeg);
                for (int j = 0; j < v.length; j++) {
                    v[j] = vNeg[j] + text.scale() * (v[j] - vNeg[j]);
                }
            }
            float dt = sigmas[i + 1] - sigmas[i];
            for (int j = 0; j < x.length; j++) {
                x[j] += dt * v[j];
            }
        }
        return x;
    }

    /** Unpack, fake-decode and quantise to 0xRRGGBB like the reference post-processing. */
    static int[] image(float[] tokens, int gridHeight, int gridWidth) {
        float[] nchw = ReferenceMath.unpack(tokens, 128, gridHeight, gridWidth);
        var pixels = FakeModel.decode(new LatentGrid(nchw, 128, gridWidth, gridHeight));
        return ReferenceMath.rgb(pixels.data(), pixels.width(), pixels.height());
    }

    /** Largest absolute difference of two arrays of the same length. */
    static float maxDifference(float[] a, float[] b) {
        if (a.length != b.length) {
            throw new AssertionError("lengths differ: " + a.length + " vs " + b.length);
        }
        float max = 0f;
        for (int i = 0; i < a.length; i++) {
            max = Math.max(max, Math.abs(a[i] - b[i]));
        }
        return max;
    }
}
