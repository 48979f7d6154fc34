package dev.flux2.bench.stages;

import dev.flux2.bench.support.BenchBundle;
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
 * One transformer step through the backend's per-step denoiser (latent → fp16 input, ids, σ, context, run, pred
 * → fp32 velocity) on the synthetic bundle, or the real one with {@code -Dflux2.model}. The realistic-width cost
 * is measured by {@link dev.flux2.bench.timing.TimingTransformerStepBenchmark}.
 */
@State(Scope.Benchmark)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class TransformerStepBenchmark {
    /** Image side in pixels; 0 = the bundle's default size. */
    @Param({"0"})
    public int size;

    private BenchBundle bundle;
    private DenoiserFixture fixture;

    /** Opens the bundle, encodes the prompt and runs one step (session creation). */
    @Setup(Level.Trial)
    public void setUp() {
        bundle = BenchBundle.syntheticOrReal();
        fixture = DenoiserFixture.open(bundle.directory(), size);
    }

    /** Closes everything and deletes a written bundle. */
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
}
