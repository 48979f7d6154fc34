package dev.flux2.testkit;

/**
 * Weights of the synthetic text encoder, derived from the spec's seed.
 *
 * @param featureProjection 5 × F row-major (F = {@link SyntheticBundleSpec#textFeatures()}): rows for (id mod 97)/97,
 *        (id mod 89)/89, ((id div 97) mod 61)/61, position·0.05 and a constant phase
 * @param projection the K = F → N = context_dim MatMulNBits weights (quantized as the spec says)
 * @param maskTerm context_dim values added where the mask is 1
 * @param bias context_dim values added everywhere
 */
record TextEncoderWeights(float[] featureProjection, QuantizedMatrix projection, float[] maskTerm, float[] bias) {
    static final int FEATURE_INPUTS = 5;
    static final float POSITION_STEP = 0.05f;

    static TextEncoderWeights generate(SyntheticBundleSpec spec) {
        int f = spec.textFeatures();
        DeterministicRandom rnd = new DeterministicRandom(spec.seed(), "text_encoder.features");
        float[] proj = new float[FEATURE_INPUTS * f];
        for (int row = 0; row < FEATURE_INPUTS; row++) {
            float range = row < 3 ? 3f : row == 3 ? 2f : (float) Math.PI;
            for (int j = 0; j < f; j++) {
                proj[row * f + j] = rnd.uniform(-range, range);
            }
        }
        // Scales shrink with √(32/F) so the context keeps its range whatever the feature count.
        float maxScale = 0.016f * (float) Math.sqrt((double) SyntheticDims.TEXT_FEATURES / f);
        QuantizedMatrix w = QuantizedMatrix.random(
                new DeterministicRandom(spec.seed(), "text_encoder.q4"),
                spec.textEncoderQuant(),
                f,
                spec.contextDim(),
                maxScale);
        float[] mask =
                new DeterministicRandom(spec.seed(), "text_encoder.mask").uniformArray(spec.contextDim(), -0.5f, 0.5f);
        float[] bias = new DeterministicRandom(spec.seed(), "text_encoder.bias")
                .uniformArray(spec.contextDim(), -0.25f, 0.25f);
        return new TextEncoderWeights(proj, w, mask, bias);
    }
}
