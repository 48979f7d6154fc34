package dev.flux2.bench.stages;

import ai.onnxruntime.OrtSession;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * The VAE decoder's pre-attention stage, one attention chunk (the bundle's chunk size), and attention over the
 * whole sequence S = (H/8)(W/8) in one call.
 */
@State(Scope.Benchmark)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class VaeDecoderPartsBenchmark {
    /** Image side in pixels; 0 = the bundle's default size. */
    @Param({"0"})
    public int size;

    private BenchBundle bundle;
    private VaeDecoderFixture fixture;

    /** Opens the bundle and runs every part once. */
    @Setup(Level.Trial)
    public void setUp() {
        bundle = BenchBundle.syntheticOrReal();
        fixture = new VaeDecoderFixture(bundle.directory(), size);
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

    /** @param bh receives the result before it is closed */
    @Benchmark
    public void preAttention(Blackhole bh) {
        try (OrtSession.Result r = fixture.runPre()) {
            bh.consume(r);
        }
    }

    /** @param bh receives the result before it is closed */
    @Benchmark
    public void attentionChunk(Blackhole bh) {
        try (OrtSession.Result r = fixture.attentionChunk()) {
            bh.consume(r);
        }
    }

    /** @param bh receives the result before it is closed */
    @Benchmark
    public void attentionWhole(Blackhole bh) {
        try (OrtSession.Result r = fixture.attentionWhole()) {
            bh.consume(r);
        }
    }
}
