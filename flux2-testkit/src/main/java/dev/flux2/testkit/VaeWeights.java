package dev.flux2.testkit;

/**
 * Weights of the synthetic VAE decoder chain and encoder, derived from the spec's seed. Projection matrices are
 * [Cr][hd] row-major.
 *
 * @param bnMean 128 latent BN means (decoder adds them after scaling, encoder subtracts them)
 * @param bnStd 128 latent BN standard deviations
 * @param patchConv 1×1 conv 32 → Cr after unpatchify
 * @param query Cr × hd
 * @param key Cr × hd
 * @param value Cr × hd
 * @param attnProj 1×1 conv hd → Cr applied to the attention result (post stage 0)
 * @param stage0 1×1 conv Cr → C₀
 * @param stage1 3×3 conv C₀ → C₁
 * @param stage2 1×1 conv C₁ → C₂
 * @param stage3 1×1 conv C₂ → 3
 * @param encoder 1×1 conv 3 → 32 of the encoder
 */
record VaeWeights(
        float[] bnMean,
        float[] bnStd,
        ConvLayer patchConv,
        float[] query,
        float[] key,
        float[] value,
        ConvLayer attnProj,
        ConvLayer stage0,
        ConvLayer stage1,
        ConvLayer stage2,
        ConvLayer stage3,
        ConvLayer encoder) {

    static VaeWeights generate(SyntheticBundleSpec spec) {
        long seed = spec.seed();
        int hd = spec.vaeHeadDim();
        int cr = SyntheticDims.RESIDUAL_CHANNELS;
        int c0 = SyntheticDims.STAGE0_CHANNELS;
        int c1 = SyntheticDims.STAGE1_CHANNELS;
        int c2 = SyntheticDims.STAGE2_CHANNELS;
        int p = SyntheticDims.PATCH_CHANNELS;
        float[] mean = new DeterministicRandom(seed, "vae.bnMean").uniformArray(128, -0.3f, 0.3f);
        float[] std = new DeterministicRandom(seed, "vae.bnStd").uniformArray(128, 0.6f, 1.4f);
        // Query/key ranges make the softmax scores O(1.5), so attention is neither flat nor one-hot.
        float qk = 2.5f / (float) Math.sqrt(cr);
        float v = 1.5f / (float) Math.sqrt(cr);
        return new VaeWeights(
                mean,
                std,
                ConvLayer.random(seed, "vae.patchConv", new int[] {cr, p, 1}, 1.5f),
                new DeterministicRandom(seed, "vae.query").uniformArray(cr * hd, -qk, qk),
                new DeterministicRandom(seed, "vae.key").uniformArray(cr * hd, -qk, qk),
                new DeterministicRandom(seed, "vae.value").uniformArray(cr * hd, -v, v),
                ConvLayer.random(seed, "vae.attnProj", new int[] {cr, hd, 1}, 1.5f),
                ConvLayer.random(seed, "vae.stage0", new int[] {c0, cr, 1}, 1.2f),
                ConvLayer.random(seed, "vae.stage1", new int[] {c1, c0, 3}, 1.2f),
                ConvLayer.random(seed, "vae.stage2", new int[] {c2, c1, 1}, 1.2f),
                // A wider last layer spreads the image over most of [-1, 1] without saturating tanh.
                ConvLayer.random(seed, "vae.stage3", new int[] {3, c2, 1}, 2.0f),
                ConvLayer.random(seed, "vae.encoder", new int[] {p, 3, 1}, 1.5f));
    }
}
