package dev.flux2.testkit;

/**
 * Weights of the synthetic transformer (shared by the per-step and fused graphs), derived from the spec's seed.
 *
 * @param tokenProjection MatMulNBits 128 → 128 weights applied to every token (quantized as the spec says)
 * @param idProjection 4 × 128 row-major, applied to each token's position ids
 * @param idPhase 128 phases added before the sine of the id term
 * @param meanProjection 128 × 128 row-major, applied to the mean token (the cross-token term)
 * @param ctxIdProjection 4 × D row-major, applied to each text position id
 * @param ctxIdPhase D phases of the text-id modulation
 * @param ctxProjection D × 128 row-major, applied to the modulated mean context
 * @param sigmaVector 128 values multiplied by σ
 */
record TransformerWeights(
        QuantizedMatrix tokenProjection,
        float[] idProjection,
        float[] idPhase,
        float[] meanProjection,
        float[] ctxIdProjection,
        float[] ctxIdPhase,
        float[] ctxProjection,
        float[] sigmaVector) {
    static final int C = SyntheticDims.LATENT_CHANNELS;
    static final float TOKEN_COEF = 0.5f;
    static final float ID_COEF = 0.25f;
    static final float CTX_MODULATION = 0.5f;

    static TransformerWeights generate(SyntheticBundleSpec spec) {
        long seed = spec.seed();
        int d = spec.contextDim();
        QuantizedMatrix tokens = QuantizedMatrix.random(
                new DeterministicRandom(seed, "transformer.q4"), spec.transformerQuant(), C, C, 0.006f);
        float[] idProj = new DeterministicRandom(seed, "transformer.ids").uniformArray(4 * C, -0.3f, 0.3f);
        float pi = (float) Math.PI;
        float[] idPhase = new DeterministicRandom(seed, "transformer.idPhase").uniformArray(C, -pi, pi);
        float m = 4f / (float) Math.sqrt(C);
        float[] meanProj = new DeterministicRandom(seed, "transformer.mean").uniformArray(C * C, -m, m);
        float[] ctxIdProj = new DeterministicRandom(seed, "transformer.ctxIds").uniformArray(4 * d, -0.15f, 0.15f);
        float[] ctxIdPhase = new DeterministicRandom(seed, "transformer.ctxIdPhase").uniformArray(d, -pi, pi);
        float c = 1.5f / (float) Math.sqrt(d);
        float[] ctxProj = new DeterministicRandom(seed, "transformer.ctx").uniformArray(d * C, -c, c);
        float[] sigma = new DeterministicRandom(seed, "transformer.sigma").uniformArray(C, -1f, 1f);
        return new TransformerWeights(tokens, idProj, idPhase, meanProj, ctxIdProj, ctxIdPhase, ctxProj, sigma);
    }
}
