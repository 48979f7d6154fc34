package dev.flux2.bench.timing;

import dev.flux2.bench.stages.DenoiserFixture;
import dev.flux2.bench.support.BenchBundle;
import dev.flux2.bench.support.StageHarness;
import dev.flux2.onnx.options.CpuTuned;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
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
 * One timing-transformer step at 512² as shipped against its CPU-tuned variants (cpu_tuned; {@code dev.flux2.onnx.derived}):
 * {@code graph=shipped} (fp16 activations, {@code accuracy_level} 4), {@code acc0} (accuracy level 0 only) and
 * {@code acc0-fp32} (level 0 and fp32 activations, what the {@code cpu_tuned} option runs); {@code fp32} (fp32
 * activations, level kept) can be chosen with {@code -p graph=fp32}. The tuned graphs are
 * derived in the trial setup (outside the measurement), beside the temporary bundle. Threads per run: {@code threads}
 * (2 by default, the comparison).
 *
 * <p>Each iteration runs one step (a step takes seconds, the iteration time 1 ms), and besides the wall time the
 * secondary result {@code step:cpuMsPerStep} reports the process CPU time the step used (all of ONNX Runtime's
 * threads), which other jobs on a shared machine disturb less than the wall time.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1, time = 1, timeUnit = TimeUnit.MILLISECONDS)
@Measurement(iterations = 3, time = 1, timeUnit = TimeUnit.MILLISECONDS)
@Fork(1)
public class CpuTunedStepBenchmark {
    /** {@code klein} or {@code tiny}, as {@link TimingTransformerStepBenchmark}. */
    @Param({"klein"})
    public String width;

    /** Double-stream + single-stream blocks in the graph. */
    @Param({"1+1"})
    public String blocks;

    /** The graph variant. */
    @Param({"shipped", "acc0", "acc0-fp32"})
    public String graph;

    /** Intra-op threads per run. */
    @Param({"2"})
    public int threads;

    /** Image side in pixels. */
    @Param({"512"})
    public int size;

    private BenchBundle bundle;
    private DenoiserFixture fixture;

    /** Writes the timing bundle, derives the variant, encodes the prompt and runs one step (session creation). */
    @Setup(Level.Trial)
    public void setUp() {
        bundle = BenchBundle.timing(TimingTransformerStepBenchmark.spec(width, blocks), size);
        fixture = DenoiserFixture.open(StageHarness.open(bundle.directory(), tuning(graph), threads), size);
    }

    /** Closes everything and deletes the bundle (and the derived graphs with it). */
    @TearDown(Level.Trial)
    public void tearDown() {
        try {
            fixture.close();
        } finally {
            bundle.close();
        }
    }

    /**
     * @param cpu the process CPU time counter
     * @return the velocity of step 1 of 4
     */
    @Benchmark
    public float[] step(ProcessCpu cpu) {
        long start = ProcessCpu.nanos();
        float[] v = fixture.step(0);
        cpu.record(ProcessCpu.nanos() - start);
        return v;
    }

    /** The process CPU time of the measured steps, as a JMH secondary result (milliseconds per step). */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class ProcessCpu {
        /** CPU milliseconds per step, averaged over the iteration's steps. */
        public double cpuMsPerStep;

        private long steps;
        private long totalNanos;

        /** Clears the counters at each iteration. */
        @Setup(Level.Iteration)
        public void reset() {
            steps = 0;
            totalNanos = 0;
            cpuMsPerStep = 0;
        }

        void record(long nanos) {
            steps++;
            totalNanos += nanos;
            cpuMsPerStep = totalNanos / 1e6 / steps;
        }

        static long nanos() {
            if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                    instanceof com.sun.management.OperatingSystemMXBean os) {
                return os.getProcessCpuTime();
            }
            return 0;
        }
    }

    static CpuTuned tuning(String graph) {
        return switch (graph) {
            case "shipped" -> CpuTuned.OFF;
            case "acc0" -> CpuTuned.ACC0;
            case "acc0-fp32" -> CpuTuned.FULL;
            case "fp32" -> CpuTuned.FP32;
            default ->
                throw new IllegalArgumentException(
                        "graph must be shipped, acc0, fp32 or acc0-fp32, was '" + graph + "'");
        };
    }
}
