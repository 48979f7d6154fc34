package dev.flux2.bench.pipeline;

import dev.flux2.Flux2Pipeline;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.api.MemoryPolicy;
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

/** One text-to-image generation through {@code Flux2Pipeline} (tokenize, encode, denoise, decode). */
@State(Scope.Benchmark)
@Fork(1)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 3)
public class GenerateBenchmark {
    /** SEQUENTIAL (sessions opened per stage and generation) or RESIDENT. */
    @Param({"RESIDENT", "SEQUENTIAL"})
    public MemoryPolicy policy;

    /** Image side in pixels; 0 = the bundle's default size. */
    @Param({"0"})
    public int size;

    /** Denoising steps. */
    @Param({"4"})
    public int steps;

    private BenchBundle bundle;
    private Flux2Pipeline pipeline;
    private GenerationRequest request;
    private long seed;

    /** Opens the pipeline. */
    @Setup(Level.Trial)
    public void setUp() {
        bundle = BenchBundle.syntheticOrReal();
        pipeline = Flux2Pipeline.builder()
                .model(bundle.directory())
                .memoryPolicy(policy)
                .build();
        GenerationRequest.Builder b =
                GenerationRequest.builder("a red fox in the snow").steps(steps);
        if (size > 0) {
            b.size(size, size);
        }
        request = b.build();
    }

    /** Closes the pipeline and deletes a written bundle. */
    @TearDown(Level.Trial)
    public void tearDown() {
        try {
            pipeline.close();
        } finally {
            bundle.close();
        }
    }

    /** @return the generation (a new seed each time) */
    @Benchmark
    public GenerationResult generate() {
        return pipeline.generate(request.toBuilder().seed(seed++).build());
    }
}
