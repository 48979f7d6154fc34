package dev.flux2.bench.timing;

import dev.flux2.bench.stages.DenoiserFixture;
import dev.flux2.bench.support.BenchBundle;
import dev.flux2.testkit.timing.TimingTransformerSpec;
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
 * One transformer step at realistic width on a timing bundle at 512×512 (N = 1024 image + 512 text tokens),
 * through the backend's per-step denoiser exactly as a generation runs it. Three block layouts ({@code blocks} =
 * double+single: 1+1, 2+1, 1+2) give the cost of the embedders, one double-stream and one single-stream block
 * (see {@link StepExtrapolation}); {@code width=tiny} runs the same structure at hidden 256 (the smoke run).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 3)
@Fork(1)
public class TimingTransformerStepBenchmark {
    /** {@code klein}: hidden 3072, 24 heads, context 7680; {@code tiny}: hidden 256, 2 heads, context 64. */
    @Param({"klein"})
    public String width;

    /** Double-stream + single-stream blocks in the graph. */
    @Param({"1+1", "2+1", "1+2"})
    public String blocks;

    /** Image side in pixels. */
    @Param({"512"})
    public int size;

    private BenchBundle bundle;
    private DenoiserFixture fixture;

    /** Writes the timing bundle, encodes the prompt and runs one step (session creation). */
    @Setup(Level.Trial)
    public void setUp() {
        bundle = BenchBundle.timing(spec(width, blocks), size);
        fixture = DenoiserFixture.open(bundle.directory(), size);
    }

    /** Closes everything and deletes the bundle. */
    @TearDown(Level.Trial)
    public void tearDown() {
        try {
            fixture.close();
        } finally {
            bundle.close();
        }
    }

    /** @return the velocity of step 1 of 4 */
    @Benchmark
    public float[] step() {
        return fixture.step(0);
    }

    /**
     * @param width {@code klein} or {@code tiny}
     * @param blocks {@code D+S}
     * @return the timing transformer spec
     */
    static TimingTransformerSpec spec(String width, String blocks) {
        TimingTransformerSpec base;
        switch (width) {
            case "klein":
                base = TimingTransformerSpec.builder().build();
                break;
            case "tiny":
                base = TimingTransformerSpec.tiny();
                break;
            default:
                throw new IllegalArgumentException("width must be klein or tiny, was '" + width + "'");
        }
        String[] parts = blocks.split("\\+");
        if (parts.length != 2) {
            throw new IllegalArgumentException("blocks must be D+S (for example 1+1), was '" + blocks + "'");
        }
        return base.withBlocks(Integer.parseInt(parts[0].trim()), Integer.parseInt(parts[1].trim()));
    }
}
