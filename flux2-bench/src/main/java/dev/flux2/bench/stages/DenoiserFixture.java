package dev.flux2.bench.stages;

import dev.flux2.bench.support.StageHarness;
import dev.flux2.math.FlowMatchSchedule;
import dev.flux2.math.PositionIds;
import dev.flux2.math.TorchRandom;
import dev.flux2.onnx.bundle.FusedChoice;
import dev.flux2.onnx.stage.OnnxDenoiserSession;
import dev.flux2.onnx.stage.OnnxTextEmbedding;
import dev.flux2.onnx.stage.TextEncoderStage;
import dev.flux2.spi.DenoiseStep;
import dev.flux2.spi.DenoiserSetup;
import dev.flux2.spi.LatentGrid;
import java.nio.file.Path;

/**
 * Everything a transformer benchmark needs: an encoded prompt, a denoiser session for the image size, seeded noise
 * and the 4-step schedule. The first step is run once here so that session creation is out of the measurement.
 */
public final class DenoiserFixture implements AutoCloseable {
    private static final int STEPS = 4;

    private final StageHarness harness;
    private final OnnxTextEmbedding text;
    private final OnnxDenoiserSession session;
    private final float[] noise;
    private final float[] velocity;
    private final FlowMatchSchedule schedule;
    private final int tokens;

    private DenoiserFixture(StageHarness harness, int size) {
        this.harness = harness;
        int[] wh = harness.imageSize(size);
        int gridWidth = wh[0] / 16;
        int gridHeight = wh[1] / 16;
        this.tokens = gridWidth * gridHeight;
        this.text = new TextEncoderStage(harness.resources()).encode(harness.prompt(), harness.context());
        int textLength = harness.resources().config().text().sequenceLength();
        DenoiserSetup setup = new DenoiserSetup(
                gridWidth,
                gridHeight,
                PositionIds.image(gridWidth, gridHeight),
                new float[0],
                PositionIds.text(textLength));
        this.session = new OnnxDenoiserSession(
                harness.resources(),
                setup,
                harness.context(),
                FusedChoice.of(true, harness.resources().io()));
        this.noise = TorchRandom.randn(42L, 1, LatentGrid.CHANNELS, gridHeight, gridWidth);
        this.velocity = new float[noise.length];
        this.schedule = FlowMatchSchedule.forImage(tokens, STEPS);
        step(0);
    }

    /**
     * @param bundle the bundle directory
     * @param size image side in pixels, 0 for the bundle's default size
     * @return the fixture; the caller closes it
     */
    public static DenoiserFixture open(Path bundle, int size) {
        return open(StageHarness.open(bundle), size);
    }

    /**
     * @param harness an open harness (owned by the fixture from here on)
     * @param size image side in pixels, 0 for the bundle's default size
     * @return the fixture; the caller closes it
     */
    public static DenoiserFixture open(StageHarness harness, int size) {
        try {
            return new DenoiserFixture(harness, size);
        } catch (RuntimeException e) {
            harness.close();
            throw e;
        }
    }

    /**
     * Predicts the velocity of the seeded noise at step {@code index} of the 4-step schedule.
     *
     * @param index step index 0..3
     * @return the velocity (a reused array)
     */
    public float[] step(int index) {
        session.predictVelocity(
                new DenoiseStep(index, STEPS, schedule.sigma(index), schedule.sigma(index + 1)), noise, text, velocity);
        return velocity;
    }

    /** @return the session (for the fused graph) */
    OnnxDenoiserSession session() {
        return session;
    }

    /** @return the encoded prompt */
    OnnxTextEmbedding text() {
        return text;
    }

    /** @return the seeded noise tokens (do not modify) */
    float[] noise() {
        return noise;
    }

    /** @return the 4-step sigmas ending with 0 */
    float[] sigmas() {
        return schedule.sigmas();
    }

    /** @return the number of image tokens N */
    public int tokens() {
        return tokens;
    }

    /** Closes the session, the embedding and the harness. */
    @Override
    public void close() {
        try {
            session.close();
            text.close();
        } finally {
            harness.close();
        }
    }
}
