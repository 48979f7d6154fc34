package dev.flux2.bench.math;

import dev.flux2.math.FiniteValues;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The non-finite check the pipeline runs on every transformer prediction (and once on the final latent and the
 * decoded image), on all-finite data (the cost every generation pays): 2048 values is one 64×64 miniature step's
 * prediction, 131 072 one 512² step's, 524 288 one 1024² step's. Compare with {@code TransformerStepBenchmark} and
 * {@code TimingTransformerStepBenchmark}.
 */
@State(Scope.Benchmark)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class NonFiniteCheckBenchmark {
    /** Values per check. */
    @Param({"2048", "131072", "524288"})
    public int values;

    private float[] data;

    /** Fills the array with finite Gaussian values, as a prediction holds. */
    @Setup
    public void setUp() {
        Random random = new Random(42);
        data = new float[values];
        for (int i = 0; i < values; i++) {
            data[i] = (float) random.nextGaussian();
        }
    }

    /** @return whether all values are finite */
    @Benchmark
    public boolean check() {
        return FiniteValues.allFinite(data, data.length);
    }
}
