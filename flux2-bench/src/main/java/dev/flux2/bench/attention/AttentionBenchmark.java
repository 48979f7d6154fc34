package dev.flux2.bench.attention;

import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnxruntime.OnnxJavaType;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.platform.Fp16Conversions;
import dev.flux2.onnx.passes.MhaFusion;
import dev.flux2.onnx.passes.MhaPrecision;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.Map;
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

/**
 * One attention of the klein transformer (24 heads × 128, fp16 in and out) on the CPU: the seed export's form
 * ({@code seed}: fp32 scores and softmax, {@link SeedAttentionGraph}) against the same graph after
 * {@link MhaFusion} ({@code fused}: {@code com.microsoft.MultiHeadAttention} in fp32). 1024 tokens is a 512²
 * image with no text, 4608 a 1024² image with 512 text tokens.
 *
 * <pre>java -jar flux2-bench/target/benchmarks.jar AttentionBenchmark</pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 5)
@Fork(1)
public class AttentionBenchmark {
    /** Sequence length. */
    @Param({"1024", "4608"})
    public int tokens;

    /** {@code seed} or {@code fused}. */
    @Param({"seed", "fused"})
    public String form;

    /** Attention heads (24 in klein). */
    @Param({"24"})
    public int heads;

    /** Intra-op threads, 0 for ONNX Runtime's choice. */
    @Param({"0"})
    public int threads;

    private OrtSession session;
    private OrtSession.SessionOptions options;
    private final Map<String, OnnxTensor> inputs = new HashMap<>();

    /** Builds the graph, opens the session, makes the inputs. */
    @Setup(Level.Trial)
    public void setUp() throws OrtException {
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        ModelProto model = SeedAttentionGraph.build(heads, tokens);
        if (form.equals("fused")) {
            MhaFusion.Fused f = MhaFusion.fuse(model, MhaPrecision.FP32);
            if (f.result().fused() != 1) {
                throw new IllegalStateException("not fused: " + f.result().describe());
            }
            model = f.model();
        } else if (!form.equals("seed")) {
            throw new IllegalArgumentException("form must be seed or fused, got " + form);
        }
        options = new OrtSession.SessionOptions();
        if (threads > 0) {
            options.setIntraOpNumThreads(threads);
        }
        session = env.createSession(model.toByteArray(), options);
        SplittableRandom rnd = new SplittableRandom(1);
        long[] shape = {1, heads, tokens, SeedAttentionGraph.HEAD_DIM};
        for (String name : new String[] {"q", "k", "v"}) {
            int n = heads * tokens * SeedAttentionGraph.HEAD_DIM;
            ByteBuffer b = ByteBuffer.allocateDirect(n * 2).order(ByteOrder.nativeOrder());
            for (int i = 0; i < n; i++) {
                b.putShort(Fp16Conversions.floatToFp16((float) (2 * rnd.nextDouble() - 1)));
            }
            b.rewind();
            inputs.put(name, OnnxTensor.createTensor(env, b, shape, OnnxJavaType.FLOAT16));
        }
    }

    /** Closes the session and the inputs. */
    @TearDown(Level.Trial)
    public void tearDown() throws OrtException {
        inputs.values().forEach(OnnxTensor::close);
        session.close();
        options.close();
    }

    /**
     * @return the output's first value (keeps the run from being optimised away)
     * @throws OrtException when the run fails
     */
    @Benchmark
    public short attention() throws OrtException {
        try (OrtSession.Result r = session.run(inputs)) {
            return ((OnnxTensor) r.get(0)).getShortBuffer().get(0);
        }
    }
}
