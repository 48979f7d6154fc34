package dev.flux2.testkit;

/**
 * Plain loops over NCHW (batch 1) arrays for the reference VAE: the textbook definitions, accumulated in double.
 */
final class ReferenceOps {
    private ReferenceOps() {}

    /**
     * Convolution with stride 1 and zero padding kernel/2: y[o][r][c] = b[o] + Σ_i Σ_kr Σ_kc w[o][i][kr][kc] ·
     * x[i][r + kr − p][c + kc − p].
     */
    static double[] conv(double[] x, int height, int width, ConvLayer layer) {
        int in = layer.in();
        int k = layer.kernel();
        int pad = k / 2;
        float[] w = layer.weight();
        double[] y = new double[layer.out() * height * width];
        for (int o = 0; o < layer.out(); o++) {
            for (int r = 0; r < height; r++) {
                for (int c = 0; c < width; c++) {
                    double s = layer.bias()[o];
                    for (int i = 0; i < in; i++) {
                        for (int kr = 0; kr < k; kr++) {
                            int rr = r + kr - pad;
                            if (rr < 0 || rr >= height) {
                                continue;
                            }
                            for (int kc = 0; kc < k; kc++) {
                                int cc = c + kc - pad;
                                if (cc >= 0 && cc < width) {
                                    s += (double) w[((o * in + i) * k + kr) * k + kc]
                                            * x[(i * height + rr) * width + cc];
                                }
                            }
                        }
                    }
                    y[(o * height + r) * width + c] = s;
                }
            }
        }
        return y;
    }

    /** Nearest-neighbour upsampling by an integer factor: y[c][r][col] = x[c][r/f][col/f]. */
    static double[] upsample(double[] x, int height, int width, int factor) {
        int channels = x.length / (height * width);
        int h2 = height * factor;
        int w2 = width * factor;
        double[] y = new double[channels * h2 * w2];
        for (int c = 0; c < channels; c++) {
            for (int r = 0; r < h2; r++) {
                for (int col = 0; col < w2; col++) {
                    y[(c * h2 + r) * w2 + col] = x[(c * height + r / factor) * width + col / factor];
                }
            }
        }
        return y;
    }

    static double[] silu(double[] x) {
        double[] y = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            y[i] = x[i] / (1 + Math.exp(-x[i]));
        }
        return y;
    }

    static double[] toDouble(float[] x) {
        double[] y = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            y[i] = x[i];
        }
        return y;
    }
}
