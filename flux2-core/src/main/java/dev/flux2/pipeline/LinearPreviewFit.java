package dev.flux2.pipeline;

import dev.flux2.api.InferenceException;
import dev.flux2.image.LatentRgbProjection;
import dev.flux2.math.LatentLayout;
import dev.flux2.math.LeastSquares;
import dev.flux2.spi.Flux2Backend;
import dev.flux2.spi.LatentGrid;
import dev.flux2.spi.PixelTensor;
import dev.flux2.spi.StageContext;
import java.util.SplittableRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fits the {@link LatentRgbProjection} of the linear previews to the model's own VAE decoder, once per engine: one
 * decode of a fixed pseudo-random 512² latent (half smooth field, half white noise, unit variance per channel, as the
 * normalised latent the transformer works in), then least squares from each token's 128 channels (and a bias) to the
 * mean colour of each of its four 8×8-pixel sub-blocks. The first generation that asks for linear previews pays for
 * the decode (on the pinned q4 bundle on a CPU, seconds); later ones reuse the result. Deterministic: the same model
 * gives the same projection. Thread-safe.
 */
final class LinearPreviewFit {
    private static final Logger LOG = LoggerFactory.getLogger(LinearPreviewFit.class);
    /** Tokens per side of the fitting latent: 32 gives a 512² decode and 1024 samples for 129 unknowns. */
    static final int GRID = 32;
    /** Tokens per cell of the smooth half of the latent. */
    private static final int CELL = 4;

    private static final long SEED = 0x466C7578325076L;
    private static final double RIDGE = 1e-4;

    private final Flux2Backend backend;
    private volatile LatentRgbProjection fitted;

    /** @param backend the model whose VAE decoder is fitted (not owned) */
    LinearPreviewFit(Flux2Backend backend) {
        this.backend = backend;
    }

    /**
     * @param context the asking generation's context (the decode is cancellable and timed there)
     * @return the projection, fitted on the first call
     */
    LatentRgbProjection projection(StageContext context) {
        LatentRgbProjection p = fitted;
        if (p != null) {
            return p;
        }
        synchronized (this) {
            if (fitted == null) {
                fitted = fit(backend, context);
            }
            return fitted;
        }
    }

    /**
     * @param backend the model
     * @param context cancellation and timing; its progress is not reported
     * @return the least-squares projection
     */
    static LatentRgbProjection fit(Flux2Backend backend, StageContext context) {
        long begin = System.nanoTime();
        float[] latent = fittingLatent();
        LatentGrid grid = new LatentGrid(latent, LatentGrid.CHANNELS, GRID, GRID);
        PixelTensor decoded = backend.decodeLatent(grid, new QuietStageContext(context));
        if (decoded.width() != 16 * GRID || decoded.height() != 16 * GRID) {
            throw new InferenceException("fitting the linear preview: the VAE decoder returned " + decoded.width()
                    + "x" + decoded.height() + " pixels for a " + GRID + "x" + GRID + " latent, expected "
                    + 16 * GRID + "x" + 16 * GRID);
        }
        float[] tokens = LatentLayout.pack(grid);
        int rows = GRID * GRID;
        int inputs = LatentRgbProjection.INPUTS;
        float[] x = new float[rows * inputs];
        for (int t = 0; t < rows; t++) {
            System.arraycopy(tokens, t * LatentGrid.CHANNELS, x, t * inputs, LatentGrid.CHANNELS);
            x[t * inputs + LatentGrid.CHANNELS] = 1f;
        }
        float[] y = blockMeans(decoded);
        double[] w = LeastSquares.solve(rows, inputs, x, LatentRgbProjection.OUTPUTS, y, RIDGE);
        LatentRgbProjection projection = LatentRgbProjection.of(w);
        if (LOG.isInfoEnabled()) {
            LOG.info(
                    "Fitted the linear preview to the VAE decoder in {} ms (RMS error on the fitting blocks {})",
                    (System.nanoTime() - begin) / 1_000_000,
                    String.format(java.util.Locale.ROOT, "%.4f", rmsError(projection, tokens, y)));
        }
        return projection;
    }

    /** The fitting latent, NCHW [128, GRID, GRID]: (smooth + white)/√2 per channel. */
    static float[] fittingLatent() {
        SplittableRandom random = new SplittableRandom(SEED);
        int coarse = GRID / CELL + 1;
        int channels = LatentGrid.CHANNELS;
        float[] latent = new float[channels * GRID * GRID];
        double[] knots = new double[coarse * coarse];
        double half = Math.sqrt(0.5);
        for (int c = 0; c < channels; c++) {
            for (int k = 0; k < knots.length; k++) {
                knots[k] = gaussian(random);
            }
            for (int i = 0; i < GRID; i++) {
                double fy = (double) i / CELL;
                int y0 = (int) fy;
                double ty = fy - y0;
                for (int j = 0; j < GRID; j++) {
                    double fx = (double) j / CELL;
                    int x0 = (int) fx;
                    double tx = fx - x0;
                    double smooth = (1 - ty) * ((1 - tx) * knots[y0 * coarse + x0] + tx * knots[y0 * coarse + x0 + 1])
                            + ty * ((1 - tx) * knots[(y0 + 1) * coarse + x0] + tx * knots[(y0 + 1) * coarse + x0 + 1]);
                    latent[(c * GRID + i) * GRID + j] = (float) (half * smooth + half * gaussian(random));
                }
            }
        }
        return latent;
    }

    private static double gaussian(SplittableRandom random) {
        // Box–Muller: SplittableRandom has no nextGaussian on Java 17
        double u = 1.0 - random.nextDouble();
        return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random.nextDouble());
    }

    /** Per token, the mean RGB of its four 8×8 sub-blocks, in {@link LatentRgbProjection}'s output order. */
    static float[] blockMeans(PixelTensor pixels) {
        int width = pixels.width();
        int gridWidth = width / 16;
        int gridHeight = pixels.height() / 16;
        int plane = width * pixels.height();
        float[] data = pixels.data();
        float[] y = new float[gridWidth * gridHeight * LatentRgbProjection.OUTPUTS];
        for (int i = 0; i < gridHeight; i++) {
            for (int j = 0; j < gridWidth; j++) {
                for (int sub = 0; sub < 4; sub++) {
                    int top = 16 * i + 8 * (sub >> 1);
                    int left = 16 * j + 8 * (sub & 1);
                    for (int colour = 0; colour < 3; colour++) {
                        double sum = 0;
                        for (int r = top; r < top + 8; r++) {
                            int row = colour * plane + r * width;
                            for (int s = left; s < left + 8; s++) {
                                sum += data[row + s];
                            }
                        }
                        y[(i * gridWidth + j) * LatentRgbProjection.OUTPUTS + sub * 3 + colour] = (float) (sum / 64);
                    }
                }
            }
        }
        return y;
    }

    private static double rmsError(LatentRgbProjection projection, float[] tokens, float[] blockMeans) {
        PixelTensor p = projection.project(tokens, GRID, GRID);
        float[] mine = blockMeans(upsample(p, 8));
        double sum = 0;
        for (int k = 0; k < mine.length; k++) {
            double d = mine[k] - blockMeans[k];
            sum += d * d;
        }
        return Math.sqrt(sum / mine.length);
    }

    /** Nearest-neighbour upsampling by an integer factor (for comparing at block level). */
    static PixelTensor upsample(PixelTensor p, int factor) {
        int w = p.width() * factor;
        int h = p.height() * factor;
        float[] out = new float[3 * w * h];
        for (int c = 0; c < 3; c++) {
            for (int y = 0; y < h; y++) {
                for (int x = 0; x < w; x++) {
                    out[(c * h + y) * w + x] = p.data()[(c * p.height() + y / factor) * p.width() + x / factor];
                }
            }
        }
        return new PixelTensor(out, w, h);
    }
}
