package dev.flux2.bench.stages;

import dev.flux2.bench.support.BenchBundle;
import dev.flux2.bench.support.StageHarness;
import dev.flux2.math.TorchRandom;
import dev.flux2.onnx.options.VaeAttentionMode;
import dev.flux2.onnx.stage.VaeAttentionPlan;
import dev.flux2.onnx.stage.VaeAttentionSettings;
import dev.flux2.onnx.stage.VaeDecoderChain;
import dev.flux2.spi.LatentGrid;
import dev.flux2.spi.PixelTensor;
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

/**
 * The whole VAE decoder chain as the backend runs it (latent → pre → attention → post stages → pixels), with
 * chunked or whole-sequence attention.
 */
@State(Scope.Benchmark)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class VaeDecodeBenchmark {
    /** VAE attention mode: CHUNKED (the bundle's chunk size) or WHOLE. */
    @Param({"CHUNKED", "WHOLE"})
    public VaeAttentionMode attention;

    /** Image side in pixels; 0 = the bundle's default size. */
    @Param({"0"})
    public int size;

    private BenchBundle bundle;
    private StageHarness harness;
    private VaeDecoderChain chain;
    private LatentGrid latent;

    /** Opens the bundle and decodes once (session creation). */
    @Setup(Level.Trial)
    public void setUp() {
        bundle = BenchBundle.syntheticOrReal();
        harness = StageHarness.open(bundle.directory());
        // A unified decoder has no attention graph; the settings are then unused.
        int rows = harness.resources()
                .io()
                .splitDecoder()
                .flatMap(d ->
                        harness.resources().config().requiredModel(d.attention().key()).settings().chunkSize().stream()
                                .boxed()
                                .findFirst())
                .orElse(VaeAttentionPlan.DEFAULT_CHUNK_ROWS);
        chain = new VaeDecoderChain(harness.resources(), new VaeAttentionSettings(attention, rows));
        int[] wh = harness.imageSize(size);
        latent = new LatentGrid(
                TorchRandom.randn(3L, LatentGrid.CHANNELS * (wh[0] / 16) * (wh[1] / 16)),
                LatentGrid.CHANNELS,
                wh[0] / 16,
                wh[1] / 16);
        decode();
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

    /** @return the decoded pixels */
    @Benchmark
    public PixelTensor decode() {
        return chain.decode(latent, harness.context());
    }
}
