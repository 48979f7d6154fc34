package dev.flux2.bench.profile;

import dev.flux2.api.MemoryPolicy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Command-line options of {@link EndToEndProfile}.
 *
 * @param mode what to measure
 * @param bundle {@code synthetic}, {@code timing} or a bundle directory
 * @param size image side in pixels
 * @param steps denoising steps
 * @param generations generations to run
 * @param policies memory policies, each run in its own JVM when there are several
 * @param threads intra-op threads (0 = runtime default)
 * @param paddingBytes extra transformer weight bytes of a synthetic bundle
 * @param json where to write the results as JSON, if anywhere
 */
record ProfileOptions(
        Mode mode,
        String bundle,
        int size,
        int steps,
        int generations,
        List<MemoryPolicy> policies,
        int threads,
        long paddingBytes,
        Optional<Path> json) {

    /** What the profile measures. */
    enum Mode {
        /** N generations: per-stage time, runtime share, Java overhead, peak RSS. */
        PROFILE,
        /** VmRSS after generation 1 vs after generation N (RESIDENT). */
        RSS_GROWTH,
        /** SEQUENTIAL peak RSS against 1.3 × largest stage weights + 300 MiB. */
        MEMORY
    }

    static final String USAGE = String.join(
            "\n",
            "usage: java -cp benchmarks.jar dev.flux2.bench.profile.EndToEndProfile [options]",
            "  --mode profile|rss-growth|memory   what to measure (default profile)",
            "  --bundle synthetic|timing|DIR      bundle (default synthetic; timing = realistic-width transformer)",
            "  --size N                           image side in pixels (default 512)",
            "  --steps N                          denoising steps (default 4)",
            "  --generations N                    generations (default 3; rss-growth 50; memory 2)",
            "  --policy sequential|resident|both  memory policy; both = one child JVM each (default both;",
            "                                     rss-growth resident; memory sequential)",
            "  --threads N                        intra-op threads, 0 = ONNX Runtime default (default 0)",
            "  --padding-bytes N                  extra synthetic transformer weights (memory default 1 GiB)",
            "  --json FILE                        also write the results as JSON");

    /**
     * @param args command-line arguments
     * @return the options
     * @throws IllegalArgumentException naming a bad option
     */
    static ProfileOptions parse(String[] args) {
        Mode mode = Mode.PROFILE;
        String bundle = "synthetic";
        int size = 512;
        int steps = 4;
        Integer generations = null;
        String policy = null;
        int threads = 0;
        Long padding = null;
        Path json = null;
        for (int i = 0; i < args.length; i++) {
            String key = args[i];
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("option " + key + " needs a value\n" + USAGE);
            }
            String value = args[++i];
            switch (key) {
                case "--mode":
                    mode = Mode.valueOf(value.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
                    break;
                case "--bundle":
                    bundle = value;
                    break;
                case "--size":
                    size = positive(key, value);
                    break;
                case "--steps":
                    steps = positive(key, value);
                    break;
                case "--generations":
                    generations = positive(key, value);
                    break;
                case "--policy":
                    policy = value;
                    break;
                case "--threads":
                    threads = Integer.parseInt(value);
                    break;
                case "--padding-bytes":
                    padding = Long.parseLong(value);
                    break;
                case "--json":
                    json = Path.of(value);
                    break;
                default:
                    throw new IllegalArgumentException("unknown option " + key + "\n" + USAGE);
            }
        }
        if (size % 16 != 0) {
            throw new IllegalArgumentException("--size must be a multiple of 16, got " + size);
        }
        int n = generations != null ? generations : mode == Mode.RSS_GROWTH ? 50 : mode == Mode.MEMORY ? 2 : 3;
        String p = policy != null
                ? policy
                : mode == Mode.RSS_GROWTH ? "resident" : mode == Mode.MEMORY ? "sequential" : "both";
        List<MemoryPolicy> policies = new ArrayList<>();
        if (p.equalsIgnoreCase("both")) {
            policies.add(MemoryPolicy.SEQUENTIAL);
            policies.add(MemoryPolicy.RESIDENT);
        } else {
            policies.add(MemoryPolicy.parse(p));
        }
        if (mode == Mode.RSS_GROWTH && (policies.size() != 1 || policies.get(0) != MemoryPolicy.RESIDENT || n < 2)) {
            throw new IllegalArgumentException("rss-growth needs --policy resident and --generations >= 2");
        }
        long pad = padding != null ? padding : mode == Mode.MEMORY ? 1L << 30 : 0;
        return new ProfileOptions(
                mode, bundle, size, steps, n, List.copyOf(policies), threads, pad, Optional.ofNullable(json));
    }

    /**
     * @param policy the single policy of a child run
     * @return the arguments that reproduce these options for one policy
     */
    List<String> childArguments(MemoryPolicy policy) {
        List<String> a = new ArrayList<>(List.of(
                "--mode",
                mode.name().toLowerCase(Locale.ROOT).replace('_', '-'),
                "--bundle",
                bundle,
                "--size",
                Integer.toString(size),
                "--steps",
                Integer.toString(steps),
                "--generations",
                Integer.toString(generations),
                "--policy",
                policy.name(),
                "--threads",
                Integer.toString(threads),
                "--padding-bytes",
                Long.toString(paddingBytes)));
        json.ifPresent(p -> {
            String name = p.getFileName().toString();
            String stem = name.endsWith(".json") ? name.substring(0, name.length() - 5) : name;
            a.add("--json");
            a.add(p.resolveSibling(stem + "-" + policy.name().toLowerCase(Locale.ROOT) + ".json")
                    .toString());
        });
        return a;
    }

    private static int positive(String key, String value) {
        int v = Integer.parseInt(value);
        if (v < 1) {
            throw new IllegalArgumentException(key + " must be >= 1, got " + v);
        }
        return v;
    }
}
