package dev.flux2.bench.stages;

import dev.flux2.bench.support.BenchBundle;
import dev.flux2.bench.support.StageHarness;
import dev.flux2.onnx.stage.OnnxTextEmbedding;
import dev.flux2.onnx.stage.TextEncoderStage;
import dev.flux2.spi.TokenizedPrompt;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/** The text encoder stage: ids and mask → context [1, text_seq, context_dim] (fp16 in a native tensor). */
@State(Scope.Benchmark)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class TextEncoderBenchmark {
    private BenchBundle bundle;
    private StageHarness harness;
    private TextEncoderStage stage;
    private TokenizedPrompt tokens;

    /** Opens the bundle and runs the encoder once (session creation). */
    @Setup(Level.Trial)
    public void setUp() {
        bundle = BenchBundle.syntheticOrReal();
        harness = StageHarness.open(bundle.directory());
        stage = new TextEncoderStage(harness.resources());
        tokens = harness.prompt();
        stage.encode(tokens, harness.context()).close();
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

    /** @param bh receives the embedding before it is closed */
    @Benchmark
    public void encode(Blackhole bh) {
        try (OnnxTextEmbedding e = stage.encode(tokens, harness.context())) {
            bh.consume(e.context());
        }
    }
}
