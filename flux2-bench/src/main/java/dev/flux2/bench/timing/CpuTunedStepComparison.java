package dev.flux2.bench.timing;

import dev.flux2.bench.stages.DenoiserFixture;
import dev.flux2.bench.support.BenchBundle;
import dev.flux2.bench.support.StageHarness;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The shipped and the CPU-tuned timing transformer step side by side in one JVM, alternating step by step, so that
 * the load of a shared machine affects both alike (a JMH fork per variant runs minutes apart). Both sessions are
 * open (RESIDENT), each has run one step before the measurement. Prints every pair and the median ratio.
 *
 * <pre>java -Xmx4g -cp flux2-bench/target/benchmarks.jar dev.flux2.bench.timing.CpuTunedStepComparison \
 *     [--pairs 6] [--threads 2] [--variant acc0-fp32] [--blocks 1+1] [--width klein]</pre>
 */
public final class CpuTunedStepComparison {
    private CpuTunedStepComparison() {}

    /**
     * @param args options, see the class comment
     */
    public static void main(String[] args) {
        int pairs = 6;
        int threads = 2;
        String variant = "acc0-fp32";
        String blocks = "1+1";
        String width = "klein";
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--pairs" -> pairs = Integer.parseInt(args[i + 1]);
                case "--threads" -> threads = Integer.parseInt(args[i + 1]);
                case "--variant" -> variant = args[i + 1];
                case "--blocks" -> blocks = args[i + 1];
                case "--width" -> width = args[i + 1];
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        try (BenchBundle bundle = BenchBundle.timing(TimingTransformerStepBenchmark.spec(width, blocks), 512);
                DenoiserFixture shipped = DenoiserFixture.open(
                        StageHarness.open(bundle.directory(), CpuTunedStepBenchmark.tuning("shipped"), threads), 512);
                DenoiserFixture tuned = DenoiserFixture.open(
                        StageHarness.open(bundle.directory(), CpuTunedStepBenchmark.tuning(variant), threads), 512)) {
            System.out.printf(
                    Locale.ROOT,
                    "timing transformer %s %s, 512x512, %d threads, shipped vs %s, %d alternating pairs%n",
                    width,
                    blocks,
                    threads,
                    variant,
                    pairs);
            System.out.println("pair\tshipped_ms\ttuned_ms\tratio\tshipped_cpu_ms\ttuned_cpu_ms\tload1");
            List<Double> ratios = new ArrayList<>();
            for (int p = 1; p <= pairs; p++) {
                // Alternate which goes first within the pair.
                double[] a;
                double[] b;
                if (p % 2 == 1) {
                    a = time(shipped);
                    b = time(tuned);
                } else {
                    b = time(tuned);
                    a = time(shipped);
                }
                double ratio = a[0] / b[0];
                ratios.add(ratio);
                System.out.printf(
                        Locale.ROOT,
                        "%d\t%.0f\t%.0f\t%.3f\t%.0f\t%.0f\t%.2f%n",
                        p,
                        a[0],
                        b[0],
                        ratio,
                        a[1],
                        b[1],
                        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
            }
            double[] sorted =
                    ratios.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            System.out.printf(
                    Locale.ROOT,
                    "ratio shipped/tuned: median %.3f, range %.3f-%.3f%n",
                    median(sorted),
                    sorted[0],
                    sorted[sorted.length - 1]);
        }
    }

    private static double[] time(DenoiserFixture f) {
        long cpu = cpuNanos();
        long start = System.nanoTime();
        f.step(0);
        return new double[] {(System.nanoTime() - start) / 1e6, (cpuNanos() - cpu) / 1e6};
    }

    private static long cpuNanos() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getProcessCpuTime()
                : 0;
    }

    private static double median(double[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
