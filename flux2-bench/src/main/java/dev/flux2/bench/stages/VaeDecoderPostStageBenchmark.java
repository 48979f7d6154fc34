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

/** Each post-attention stage of the VAE decoder on its real input (stage 0 takes the residual and attention). */
@State(Scope.Benchmark)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class VaeDecoderPostStageBenchmark {
    /** Post stage index in {@code vae_decoder_post_stage_keys} order. */
    @Param({"0", "1", "2", "3"})
    public int stage;

    /** Image side in pixels; 0 = the bundle's default size. */
    @Param({"0"})
    public int size;

    private BenchBundle bundle;
    private VaeDecoderFixture fixture;

    /** Opens the bundle and computes every stage's input. */
    @Setup(Level.Trial)
    public void setUp() {
        bundle = BenchBundle.syntheticOrReal();
        fixture = new VaeDecoderFixture(bundle.directory(), size);
        if (stage < 0 || stage >= fixture.postStages()) {
            tearDown();
            throw new IllegalArgumentException(
                    "post stage " + stage + " does not exist; the bundle has " + fixture.postStages());
        }
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
    public void postStage(Blackhole bh) {
        try (OrtSession.Result r = fixture.postStage(stage)) {
            bh.consume(r);
        }
    }
}
