package dev.flux2.bench.math;

import dev.flux2.math.TorchRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Torch-compatible seeded noise for a [1, 128, 64, 64] latent (mt19937 plus the 16-wide Cephes Box–Muller), once
 * per generated image.
 */
@State(Scope.Benchmark)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class SeededNoiseBenchmark {
    private long seed;

    /** @return the noise of a fresh seed (a new generator, as each generation creates one) */
    @Benchmark
    public float[] randn() {
        return TorchRandom.randn(seed++, 1, LatentShape.CHANNELS, LatentShape.GRID, LatentShape.GRID);
    }
}
