package dev.flux2.bench.timing;

import dev.flux2.testkit.timing.TimingBundleSpec;
import dev.flux2.testkit.timing.TimingBundleWriter;
import dev.flux2.testkit.timing.TimingTransformerSpec;
import java.nio.file.Path;

/**
 * Writes a timing bundle to a folder, for runs outside JMH (the Java/Node comparison of {@code flux2-bench/node}).
 *
 * <pre>java -cp flux2-bench/target/benchmarks.jar dev.flux2.bench.timing.TimingBundleMain DIR [SIZE] [D+S]</pre>
 *
 * <p>SIZE is the default image side (512), D+S the blocks (1+1).
 */
public final class TimingBundleMain {
    private TimingBundleMain() {}

    /**
     * @param args the folder, optionally the image side and the block layout
     */
    public static void main(String[] args) {
        if (args.length < 1 || args.length > 3) {
            System.err.println("usage: TimingBundleMain DIR [SIZE] [D+S]");
            System.exit(2);
        }
        int size = args.length > 1 ? Integer.parseInt(args[1]) : 512;
        TimingTransformerSpec transformer =
                TimingTransformerStepBenchmark.spec("klein", args.length > 2 ? args[2] : "1+1");
        TimingBundleWriter.write(
                TimingBundleSpec.builder()
                        .transformer(transformer)
                        .defaultSize(size, size)
                        .build(),
                Path.of(args[0]));
        System.out.println(Path.of(args[0]).toAbsolutePath());
    }
}
