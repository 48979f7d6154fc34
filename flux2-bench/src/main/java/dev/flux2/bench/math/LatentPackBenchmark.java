package dev.flux2.bench.math;

import dev.flux2.math.LatentLayout;
import dev.flux2.spi.LatentGrid;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Packing a [128, 64, 64] latent grid into 4096 tokens of 128 channels and back (the transposes around the
 * transformer, once per generation each).
 */
@State(Scope.Benchmark)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class LatentPackBenchmark {
    private LatentGrid grid;
    private float[] tokens;

    /** Builds the grid and its packed tokens. */
    @Setup
    public void setUp() {
        grid = new LatentGrid(LatentShape.values(), LatentShape.CHANNELS, LatentShape.GRID, LatentShape.GRID);
        tokens = LatentLayout.pack(grid);
    }

    /** @return the packed tokens */
    @Benchmark
    public float[] pack() {
        return LatentLayout.pack(grid);
    }

    /** @return the unpacked grid */
    @Benchmark
    public LatentGrid unpack() {
        return LatentLayout.unpack(tokens, LatentShape.CHANNELS, LatentShape.GRID, LatentShape.GRID);
    }
}
