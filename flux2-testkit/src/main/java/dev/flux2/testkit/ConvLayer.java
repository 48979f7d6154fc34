package dev.flux2.testkit;

/**
 * One convolution's parameters: weight [out][in][kernel][kernel] row-major and bias [out]; stride 1, zero padding
 * kernel/2 (so 1×1 and 3×3 keep the spatial size).
 *
 * @param weight out·in·kernel² values
 * @param bias out values
 * @param out output channels
 * @param in input channels
 * @param kernel 1 or 3
 */
record ConvLayer(float[] weight, float[] bias, int out, int in, int kernel) {

    /** Draws weights uniform in ±gain/√(in·kernel²) and biases uniform in ±0.1. */
    static ConvLayer random(long seed, String name, int[] outInKernel, float gain) {
        int out = outInKernel[0];
        int in = outInKernel[1];
        int kernel = outInKernel[2];
        float range = gain / (float) Math.sqrt((double) in * kernel * kernel);
        float[] w = new DeterministicRandom(seed, name).uniformArray(out * in * kernel * kernel, -range, range);
        float[] b = new DeterministicRandom(seed, name + ".bias").uniformArray(out, -0.1f, 0.1f);
        return new ConvLayer(w, b, out, in, kernel);
    }
}
