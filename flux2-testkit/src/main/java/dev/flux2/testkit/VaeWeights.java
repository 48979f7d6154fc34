package dev.flux2.testkit;

/**
 * Weights of the synthetic VAE decoder chain and encoder, derived from the spec's seed. Convolution weights are
 * [out][in] (1×1) or [out][in][3][3], row-major.
 *
 * @param bnMean 128 latent BN means (decoder adds them after scaling, encoder subtracts them)
 * @param bnStd 128 latent BN standard deviations
 * @param patchConv Cr × 32 1×1 conv after unpatchify
 * @param patchBias Cr
 * @param query Cr × hd
 * @param key Cr × hd
 * @param value Cr × hd
 * @param attnProj Cr × hd 1×1 conv applied to the attention result (post stage 0)
 * @param attnProjBias Cr
 * @param stage0Conv C₀ × Cr
 * @param stage0Bias C₀
 * @param stage1Conv C₁ × C₀ × 3 × 3
 * @param stage1Bias C₁
 * @param stage2Conv C₂ × C₁
 * @param stage2Bias C₂
 * @param stage3Conv 3 × C₂
 * @param stage3Bias 3
 * @param encoderConv 32 × 3 1×1 conv of the encoder
 * @param encoderBias 32
 */
record VaeWeights(float[] bnMean, float[] bnStd, float[] patchConv, float[] patchBias, float[] query, float[] key,
        float[] value, float[] attnProj, float[] attnProjBias, float[] stage0Conv, float[] stage0Bias,
        float[] stage1Conv, float[] stage1Bias, float[] stage2Conv, float[] stage2Bias, float[] stage3Conv,
        float[] stage3Bias, float[] encoderConv, float[] encoderBias) {
    static final int CR = SyntheticDims.RESIDUAL_CHANNELS;
    static final int C0 = SyntheticDims.STAGE0_CHANNELS;
    static final int C1 = SyntheticDims.STAGE1_CHANNELS;
    static final int C2 = SyntheticDims.STAGE2_CHANNELS;
    static final int P = SyntheticDims.PATCH_CHANNELS;

    static VaeWeights generate(SyntheticBundleSpec spec) {
        long seed = spec.seed();
        int hd = spec.vaeHeadDim();
        float[] mean = draw(seed, "vae.bnMean", 128, 0.3f);
        float[] std = new DeterministicRandom(seed, "vae.bnStd").uniformArray(128, 0.6f, 1.4f);
        // Query/key scales make the softmax scores O(1.5) so that attention is neither flat nor one-hot.
        float qk = 2.5f / (float) Math.sqrt(CR);
        return new VaeWeights(mean, std,
                draw(seed, "vae.patchConv", CR * P, 1.5f / (float) Math.sqrt(P)), draw(seed, "vae.patchBias", CR, 0.1f),
                draw(seed, "vae.query", CR * hd, qk), draw(seed, "vae.key", CR * hd, qk),
                draw(seed, "vae.value", CR * hd, 1.5f / (float) Math.sqrt(CR)),
                draw(seed, "vae.attnProj", CR * hd, 1.5f / (float) Math.sqrt(hd)), draw(seed, "vae.attnProjBias", CR, 0.1f),
                draw(seed, "vae.stage0", C0 * CR, 1.2f / (float) Math.sqrt(CR)), draw(seed, "vae.stage0Bias", C0, 0.1f),
                draw(seed, "vae.stage1", C1 * C0 * 9, 1.2f / (float) Math.sqrt(9.0 * C0)),
                draw(seed, "vae.stage1Bias", C1, 0.1f),
                draw(seed, "vae.stage2", C2 * C1, 1.2f / (float) Math.sqrt(C1)), draw(seed, "vae.stage2Bias", C2, 0.1f),
                draw(seed, "vae.stage3", 3 * C2, 2.0f / (float) Math.sqrt(C2)), draw(seed, "vae.stage3Bias", 3, 0.1f),
                draw(seed, "vae.encoder", P * 3, 1.5f / (float) Math.sqrt(3)), draw(seed, "vae.encoderBias", P, 0.1f));
    }

    private static float[] draw(long seed, String name, int n, float range) {
        return new DeterministicRandom(seed, name).uniformArray(n, -range, range);
    }
}
