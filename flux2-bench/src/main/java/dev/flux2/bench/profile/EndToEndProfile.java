package dev.flux2.bench.profile;

import dev.flux2.api.MemoryPolicy;
import dev.flux2.bench.support.BenchBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.timing.TimingTransformerSpec;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * End-to-end profile of whole generations through {@code Flux2Pipeline}: per-stage wall time, total, the time
 * inside {@code OrtSession.run}, the Java-side overhead (total − runtime) as a percentage, and peak RSS (VmHWM).
 *
 * <p>VmHWM is per process, so every measurement runs in a fresh JVM: a written bundle ({@code synthetic}: the
 * testkit miniature; {@code timing}: realistic-width transformer with 1 + 1 blocks) is created by this process,
 * which then starts one child JVM per memory policy with the same JVM options and {@code --bundle DIR}, and deletes
 * the bundle afterwards. With {@code --bundle DIR} and one policy it measures in-process.
 *
 * <p>Modes: {@code profile} (default); {@code rss-growth}: VmRSS after generation 1 vs after generation N
 * (default 50, RESIDENT); {@code memory}: SEQUENTIAL peak RSS against 1.3 × the largest stage's weight bytes +
 * 300 MiB on a synthetic bundle with {@code --padding-bytes} (default 1 GiB) of extra transformer weights. Run with
 * no arguments for the usage. Linux only (reads {@code /proc}).
 */
public final class EndToEndProfile {
    private EndToEndProfile() {}

    /**
     * @param args see {@link ProfileOptions#USAGE}
     * @throws Exception when a child JVM cannot be started or a generation fails
     */
    public static void main(String[] args) throws Exception {
        if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
            System.out.println(ProfileOptions.USAGE);
            return;
        }
        ProfileOptions options = ProfileOptions.parse(args);
        boolean written =
                options.bundle().equals("synthetic") || options.bundle().equals("timing");
        if (!written) {
            Path dir = Path.of(options.bundle());
            if (options.policies().size() == 1) {
                measure(dir, options, dir.toString());
            } else {
                children(options, dir, dir.toString());
            }
            return;
        }
        try (BenchBundle bundle = write(options)) {
            children(options, bundle.directory(), bundle.toString());
        }
    }

    private static void children(ProfileOptions options, Path bundle, String description)
            throws IOException, InterruptedException {
        for (MemoryPolicy policy : options.policies()) {
            int code = child(options, policy, bundle, description);
            if (code != 0) {
                throw new IllegalStateException("the " + policy + " profile JVM exited with code " + code);
            }
        }
    }

    private static BenchBundle write(ProfileOptions options) {
        System.out.println("writing the " + options.bundle() + " bundle …");
        if (options.bundle().equals("timing")) {
            return BenchBundle.timing(TimingTransformerSpec.builder().build(), options.size());
        }
        return BenchBundle.synthetic(SyntheticBundleSpec.builder()
                .defaultSize(options.size(), options.size())
                .transformerPaddingBytes(options.paddingBytes()));
    }

    private static int child(ProfileOptions options, MemoryPolicy policy, Path bundle, String description)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        command.add("-Dflux2.profile.bundleDescription=" + description);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(EndToEndProfile.class.getName());
        List<String> args = options.childArguments(policy);
        int i = args.indexOf("--bundle");
        args.set(i + 1, bundle.toString());
        command.addAll(args);
        return new ProcessBuilder(command).inheritIO().start().waitFor();
    }

    private static void measure(Path bundle, ProfileOptions options, String fallbackDescription) {
        if (!Files.isDirectory(bundle)) {
            throw new IllegalArgumentException("--bundle " + bundle + " is neither synthetic, timing nor a directory");
        }
        MachineInfo machine = MachineInfo.current();
        MemoryPolicy policy = options.policies().get(0);
        ProfileRun.Result run = ProfileRun.run(bundle, policy, options);
        String description = System.getProperty("flux2.profile.bundleDescription", fallbackDescription);
        // Measured after the peak RSS was read for every generation, so it cannot raise the reported peak.
        SessionOpenCost sessions = SessionOpenCost.measure(bundle, options.threads());
        ProfileReport report =
                new ProfileReport(options, policy, description, run, BundleWeights.of(bundle), machine, sessions);
        report.print(System.out);
        options.json().ifPresent(report::writeJson);
    }
}
