package dev.flux2.testkit;

/**
 * Weights of the synthetic text encoder, derived from the spec's seed.
 *
 * @param featureProjection 5 × {@link SyntheticDims#TEXT_FEATURES} row-major: rows for (id mod 97)/97,
 *        (id mod 89)/89, ((id div 97) mod 61)/61, position·0.05 and a constant phase
 * @param projection the 4-bit K = TEXT_FEATURES → N = context_dim weights
 * @param maskTerm context_dim values added where the mask is 1
 * @param bias context_dim values added everywhere
 */
record TextEncoderWeights(float[] featureProjection, Q4Matrix projection, float[] maskTerm, float[] bias) {
    static final int FEATURE_INPUTS = 5;
    static final float POSITION_STEP = 0.05f;

    static TextEncoderWeights generate(SyntheticBundleSpec spec) {
        int f = SyntheticDims.TEXT_FEATURES;
        DeterministicRandom rnd = new DeterministicRandom(spec.seed(), "text_encoder.features");
        float[] proj = new float[FEATURE_INPUTS * f];
        for (int row = 0; row < FEATURE_INPUTS; row++) {
            float range = row < 3 ? 3f : row == 3 ? 2f : (float) Math.PI;
            for (int j = 0; j < f; j++) {
                proj[row * f + j] = rnd.uniform(-range, range);
            }
        }
        Q4Matrix w =
                Q4Matrix.random(new DeterministicRandom(spec.seed(), "text_encoder.q4"), f, spec.contextDim(), 0.016f);
        float[] mask =
                new DeterministicRandom(spec.seed(), "text_encoder.mask").uniformArray(spec.contextDim(), -0.5f, 0.5f);
        float[] bias = new DeterministicRandom(spec.seed(), "text_encoder.bias")
                .uniformArray(spec.contextDim(), -0.25f, 0.25f);
        return new TextEncoderWeights(proj, w, mask, bias);
    }
}
