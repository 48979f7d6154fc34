package dev.flux2.math;

import java.util.Arrays;
import java.util.Objects;

/**
 * The VAE latent batch-norm statistics (docs/pipeline-reference.md §11): one mean and variance per patchified channel
 * {@code f = 4c+2dy+dx}, applied as {@code (P − mean)/sqrt(var + eps)} after encoding and inverted before decoding.
 * The arithmetic is float32, as in the reference ({@code sqrt(var + eps)} of a float32 buffer). Immutable and
 * thread-safe: the arrays are copied on the way in and out.
 *
 * @param runningMean {@code bn.running_mean}, one value per patchified channel (128 for FLUX.2)
 * @param runningVar {@code bn.running_var}, same length, non-negative
 * @param eps {@code batch_norm_eps} (1e-4 for FLUX.2)
 */
public record LatentNormalization(float[] runningMean, float[] runningVar, double eps) {
    /**
     * Validates and copies the statistics.
     *
     * @param runningMean one mean per patchified channel
     * @param runningVar one variance per patchified channel, {@code var + eps > 0}
     * @param eps the batch-norm epsilon, finite and non-negative
     * @throws IllegalArgumentException if the lengths differ or a value is not finite
     */
    public LatentNormalization {
        Objects.requireNonNull(runningMean, "runningMean");
        Objects.requireNonNull(runningVar, "runningVar");
        if (runningMean.length < 1 || runningMean.length != runningVar.length) {
            throw new IllegalArgumentException("runningMean and runningVar must have the same non-zero length, got "
                    + runningMean.length + " and " + runningVar.length);
        }
        if (!(eps >= 0.0) || Double.isInfinite(eps)) {
            throw new IllegalArgumentException("eps must be finite and non-negative, got " + eps);
        }
        runningMean = runningMean.clone();
        runningVar = runningVar.clone();
        for (int f = 0; f < runningVar.length; f++) {
            if (!Float.isFinite(runningMean[f])) {
                throw new IllegalArgumentException("runningMean[" + f + "] must be finite, got " + runningMean[f]);
            }
            if (!(runningVar[f] + (float) eps > 0f) || !Float.isFinite(runningVar[f])) {
                throw new IllegalArgumentException(
                        "runningVar[" + f + "] + eps must be finite and positive, got " + runningVar[f] + " + " + eps);
            }
        }
    }

    /** @return a copy of the per-channel means */
    @Override
    public float[] runningMean() {
        return runningMean.clone();
    }

    /** @return a copy of the per-channel variances */
    @Override
    public float[] runningVar() {
        return runningVar.clone();
    }

    /** @return the number of channels the statistics cover */
    public int channels() {
        return runningMean.length;
    }

    /**
     * @param patchified a patchified latent with {@link #channels()} channels; not modified
     * @return a new grid {@code (P − mean)/sqrt(var + eps)}
     * @throws IllegalArgumentException if the channel count does not match
     */
    public LatentGrid normalize(LatentGrid patchified) {
        return apply(patchified, true);
    }

    /**
     * @param patchified a normalised patchified latent with {@link #channels()} channels; not modified
     * @return a new grid {@code P·sqrt(var + eps) + mean}
     * @throws IllegalArgumentException if the channel count does not match
     */
    public LatentGrid denormalize(LatentGrid patchified) {
        return apply(patchified, false);
    }

    private LatentGrid apply(LatentGrid p, boolean forward) {
        Objects.requireNonNull(p, "patchified");
        if (p.channels() != runningMean.length) {
            throw new IllegalArgumentException("latent has " + p.channels() + " channels but the batch-norm "
                    + "statistics cover " + runningMean.length + " (normalise the patchified latent)");
        }
        int plane = p.height() * p.width();
        float[] src = p.data();
        float[] dst = new float[src.length];
        float e = (float) eps;
        for (int f = 0; f < runningMean.length; f++) {
            float mean = runningMean[f];
            float std = (float) Math.sqrt(runningVar[f] + e);
            int base = f * plane;
            if (forward) {
                for (int k = base; k < base + plane; k++) {
                    dst[k] = (src[k] - mean) / std;
                }
            } else {
                for (int k = base; k < base + plane; k++) {
                    dst[k] = src[k] * std + mean;
                }
            }
        }
        return new LatentGrid(dst, p.channels(), p.height(), p.width());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LatentNormalization other
                && Arrays.equals(runningMean, other.runningMean)
                && Arrays.equals(runningVar, other.runningVar)
                && Double.compare(eps, other.eps) == 0;
    }

    @Override
    public int hashCode() {
        return 31 * (31 * Arrays.hashCode(runningMean) + Arrays.hashCode(runningVar)) + Double.hashCode(eps);
    }

    @Override
    public String toString() {
        return "LatentNormalization[channels=" + runningMean.length + ", eps=" + eps + "]";
    }
}
