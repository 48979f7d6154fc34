package dev.flux2.bench.stages;

import dev.flux2.bench.support.BenchBundle;
import dev.flux2.bench.support.StageHarness;
import dev.flux2.onnx.stage.VaeEncoderStage;
import dev.flux2.spi.LatentGrid;
import dev.flux2.spi.PixelTensor;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/** The VAE encoder stage: pixels in [−1, 1] → normalised, patchified latent (img2img and reference images). */
@State(Scope.Benchmark)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class VaeEncoderBenchmark {
    /** Image side in pixels; 0 = the bundle's default size. */
    @Param({"0"})
    public int size;

    private BenchBundle bundle;
    private StageHarness harness;
    private VaeEncoderStage stage;
    private PixelTensor image;

    /** Opens the bundle and encodes once (session creation). */
    @Setup(Level.Trial)
    public void setUp() {
        bundle = BenchBundle.syntheticOrReal();
        harness = StageHarness.open(bundle.directory());
        stage = new VaeEncoderStage(
                harness.resources(),
                harness.resources()
                        .io()
                        .vaeEncoder()
                        .orElseThrow(() -> new IllegalStateException("bundle " + bundle + " has no vae_encoder")));
        int[] wh = harness.imageSize(size);
        float[] pixels = new float[3 * wh[0] * wh[1]];
        SplittableRandom rnd = new SplittableRandom(5);
        for (int i = 0; i < pixels.length; i++) {
            pixels[i] = (float) (rnd.nextDouble() * 2 - 1);
        }
        image = new PixelTensor(pixels, wh[0], wh[1]);
        encode();
    }

    /** Closes sessions and deletes a written bundle. */
    @TearDown(Level.Trial)
    public void tearDown() {
        try {
            harness.close();
        } finally {
            bundle.close();
        }
    }

    /** @return the latent */
    @Benchmark
    public LatentGrid encode() {
        return stage.encode(image, harness.context());
    }
}
