package dev.flux2.testkit;

import java.awt.image.BufferedImage;

/**
 * The tests' one pipeline oracle: a re-implementation of the pipeline math (schedule, img2img start, packing,
 * position ids, pixel conversion), written from docs/pipeline-reference.md (§5, §6, §9, §12) and independent of the
 * production classes, so that tests compare against something the engine did not compute. flux2-core's
 * {@code ReferenceMathTest} pins it to the golden vectors; {@link SyntheticReference} (the synthetic graphs' math)
 * and the engine's tests take their layouts from it.
 */
public final class ReferenceMath {
    private ReferenceMath() {}

    /** compute_empirical_mu, in double. */
    public static double mu(int imageSeqLen, int steps) {
        double a1 = 8.73809524e-05;
        double b1 = 1.89833333;
        double a2 = 0.00016927;
        double b2 = 0.45666666;
        if (imageSeqLen > 4300) {
            return a2 * imageSeqLen + b2;
        }
        double m200 = a2 * imageSeqLen + b2;
        double m10 = a1 * imageSeqLen + b1;
        double a = (m200 - m10) / 190.0;
        double b = m200 - 200.0 * a;
        return a * steps + b;
    }

    /** The n+1 shifted sigmas of linspace(1, 1/n, n), last 0. */
    public static float[] sigmas(int imageSeqLen, int steps) {
        float[] lin = new float[steps];
        if (steps == 1) {
            lin[0] = 1f;
        } else {
            double delta = (1.0 / steps - 1.0) / (steps - 1);
            for (int i = 0; i < steps; i++) {
                lin[i] = (float) (i * delta + 1.0);
            }
            lin[steps - 1] = (float) (1.0 / steps);
        }
        return shift(lin, mu(imageSeqLen, steps));
    }

    /** The n+1 shifted sigmas of custom unshifted sigmas, last 0 (diffusers' sigmas= argument). */
    public static float[] customSigmas(int imageSeqLen, float[] unshifted) {
        return shift(unshifted, mu(imageSeqLen, unshifted.length));
    }

    private static float[] shift(float[] lin, double mu) {
        float em = (float) Math.exp(mu);
        float[] sigmas = new float[lin.length + 1];
        for (int i = 0; i < lin.length; i++) {
            sigmas[i] = em / (em + (1f / lin[i] - 1f));
        }
        return sigmas;
    }

    /** img2img start index, INPAINT rounding: (int) max(n − min(n·s, n), 0). */
    public static int startIndex(int steps, double strength) {
        double init = Math.min(steps * strength, steps);
        return (int) Math.max(steps - init, 0);
    }

    /** [C, H, W] → tokens [H·W, C]. */
    public static float[] pack(float[] nchw, int channels, int height, int width) {
        float[] tokens = new float[nchw.length];
        for (int f = 0; f < channels; f++) {
            for (int i = 0; i < height; i++) {
                for (int j = 0; j < width; j++) {
                    tokens[(i * width + j) * channels + f] = nchw[(f * height + i) * width + j];
                }
            }
        }
        return tokens;
    }

    /** tokens [H·W, C] → [C, H, W]. */
    public static float[] unpack(float[] tokens, int channels, int height, int width) {
        float[] nchw = new float[tokens.length];
        for (int f = 0; f < channels; f++) {
            for (int i = 0; i < height; i++) {
                for (int j = 0; j < width; j++) {
                    nchw[(f * height + i) * width + j] = tokens[(i * width + j) * channels + f];
                }
            }
        }
        return nchw;
    }

    /** (0, r, c, 0) per token of a grid, row-major. */
    public static float[] imageIds(int gridHeight, int gridWidth) {
        return gridIds(0f, gridHeight, gridWidth);
    }

    /** (10(i+1), r, c, 0) per token of reference i's grid. */
    public static float[] referenceIds(int index, int gridHeight, int gridWidth) {
        return gridIds(10f * (index + 1), gridHeight, gridWidth);
    }

    private static float[] gridIds(float t, int gridHeight, int gridWidth) {
        float[] ids = new float[gridHeight * gridWidth * 4];
        for (int r = 0; r < gridHeight; r++) {
            for (int c = 0; c < gridWidth; c++) {
                int k = (r * gridWidth + c) * 4;
                ids[k] = t;
                ids[k + 1] = r;
                ids[k + 2] = c;
            }
        }
        return ids;
    }

    /** (0, 0, 0, l) for l = 0..length−1. */
    public static float[] textIds(int length) {
        float[] ids = new float[length * 4];
        for (int l = 0; l < length; l++) {
            ids[l * 4 + 3] = l;
        }
        return ids;
    }

    /** Planar RGB floats 2·(v/255) − 1, as diffusers' preprocess computes them in float32. */
    public static float[] pixels(BufferedImage image) {
        int w = image.getWidth();
        int h = image.getHeight();
        float[] data = new float[3 * w * h];
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                int rgb = image.getRGB(x, y);
                for (int c = 0; c < 3; c++) {
                    int v = (rgb >> (16 - 8 * c)) & 0xff;
                    data[(c * h + y) * w + x] = 2f * (v / 255f) - 1f;
                }
            }
        }
        return data;
    }

    /** Packed 0xRRGGBB per pixel from planar [−1, 1] floats: round-half-even of clamp(x/2 + 1/2)·255. */
    public static int[] rgb(float[] planar, int width, int height) {
        int[] out = new int[width * height];
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                int rgb = 0;
                for (int c = 0; c < 3; c++) {
                    float u = Math.min(1f, Math.max(0f, planar[(c * height + y) * width + x] * 0.5f + 0.5f));
                    rgb = (rgb << 8) | (int) Math.rint(u * 255f);
                }
                out[y * width + x] = rgb;
            }
        }
        return out;
    }

    /** @return the image's pixels as 0xRRGGBB (alpha bits cleared) */
    public static int[] rgb(BufferedImage image) {
        int[] argb = image.getRGB(0, 0, image.getWidth(), image.getHeight(), null, 0, image.getWidth());
        for (int i = 0; i < argb.length; i++) {
            argb[i] &= 0xffffff;
        }
        return argb;
    }

    /** A deterministic, non-trivial test image (a smooth gradient with a per-pixel pattern). */
    public static BufferedImage testImage(int width, int height, int salt) {
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                int r = (x * 255 / Math.max(1, width - 1) + salt * 17) & 0xff;
                int g = (y * 255 / Math.max(1, height - 1) + salt * 31) & 0xff;
                int b = ((x * 7 + y * 13) * (salt + 3)) & 0xff;
                image.setRGB(x, y, (r << 16) | (g << 8) | b);
            }
        }
        return image;
    }
}
