package dev.flux2.bench.math;

import dev.flux2.onnx.bundle.ElementType;
import dev.flux2.onnx.session.SharedEnvironment;
import dev.flux2.onnx.tensor.TensorBuffer;
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

/**
 * fp32 ↔ fp16 conversion of a [1, 4096, 128] latent at the session boundary, through the backend's
 * {@link TensorBuffer} (scalar conversion loop plus bulk copy into a reused direct buffer): what every transformer
 * step does with its input and output.
 */
@State(Scope.Benchmark)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class Fp16ConversionBenchmark {
    private float[] values;
    private float[] readBack;
    private TensorBuffer buffer;

    /** Allocates the fp16 tensor and fills it once. */
    @Setup(Level.Trial)
    public void setUp() {
        values = LatentShape.values();
        readBack = new float[values.length];
        buffer = TensorBuffer.allocate(
                SharedEnvironment.get(), ElementType.FLOAT16, 1, LatentShape.TOKENS, LatentShape.CHANNELS);
        buffer.writeFloats(values, 0, values.length, 0);
    }

    /** Closes the tensor. */
    @TearDown(Level.Trial)
    public void tearDown() {
        buffer.close();
    }

    /** @return the buffer, after converting the latent to fp16 into it */
    @Benchmark
    public TensorBuffer toHalf() {
        buffer.writeFloats(values, 0, values.length, 0);
        return buffer;
    }

    /** @return the latent converted back from fp16 */
    @Benchmark
    public float[] fromHalf() {
        buffer.readFloats(0, readBack, 0, readBack.length);
        return readBack;
    }
}
