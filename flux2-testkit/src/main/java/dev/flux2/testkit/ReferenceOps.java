package dev.flux2.testkit;

/**
 * Plain loops over NCHW (batch 1) arrays for the reference VAE: the textbook definitions, accumulated in double.
 */
final class ReferenceOps {
    private ReferenceOps() {
    }

    /** y[o][p] = Σ_i w[o][i]·x[i][p] + b[o] over p = every pixel. */
    static double[] conv1x1(double[] x, int in, int pixels, float[] w, float[] b, int out) {
        double[] y = new double[out * pixels];
        for (int o = 0; o < out; o++) {
            for (int p = 0; p < pixels; p++) {
                double s = b[o];
                for (int i = 0; i < in; i++) {
                    s += (double) w[o * in + i] * x[i * pixels + p];
                }
                y[o * pixels + p] = s;
            }
        }
        return y;
    }

    /** 3×3 convolution, stride 1, zero padding 1; w is [out][in][3][3]. */
    static double[] conv3x3(double[] x, int in, int height, int width, float[] w, float[] b, int out) {
        double[] y = new double[out * height * width];
        for (int o = 0; o < out; o++) {
            for (int r = 0; r < height; r++) {
                for (int c = 0; c < width; c++) {
                    double s = b[o];
                    for (int i = 0; i < in; i++) {
                        for (int kr = 0; kr < 3; kr++) {
                            int rr = r + kr - 1;
                            if (rr < 0 || rr >= height) {
                                continue;
                            }
                            for (int kc = 0; kc < 3; kc++) {
                                int cc = c + kc - 1;
                                if (cc >= 0 && cc < width) {
                                    s += (double) w[((o * in + i) * 3 + kr) * 3 + kc] * x[(i * height + rr) * width + cc];
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
    static double[] upsample(double[] x, int channels, int height, int width, int factor) {
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

    /** Converts to float and rounds to fp16, the way the graphs' final Cast does after fp32 compute. */
    static float[] toHalf(double[] x) {
        float[] y = new float[x.length];
        for (int i = 0; i < x.length; i++) {
            y[i] = Fp16.round((float) x[i]);
        }
        return y;
    }
}
