package dev.flux2.bench.profile;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flux2.api.MemoryPolicy;
import dev.flux2.api.Stage;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Prints a profile run (and writes it as JSON): per-stage table, summary, and the target checks of its mode. */
final class ProfileReport {
    private static final double MIB = 1024.0 * 1024.0;
    /** Java-side overhead target, percent of end-to-end time. */
    static final double OVERHEAD_TARGET_PERCENT = 2.0;
    /** SEQUENTIAL peak RSS target: this factor times the largest stage's weight bytes … */
    static final double MEMORY_FACTOR = 1.3;
    /** … plus this many bytes. */
    static final long MEMORY_ALLOWANCE_BYTES = 300L << 20;
    /** RSS growth target over the RESIDENT generations, percent. */
    static final double RSS_GROWTH_TARGET_PERCENT = 5.0;

    private final ProfileOptions options;
    private final MemoryPolicy policy;
    private final String bundle;
    private final ProfileRun.Result run;
    private final BundleWeights weights;
    private final MachineInfo machine;
    private final SessionOpenCost sessionCost;

    ProfileReport(
            ProfileOptions options,
            MemoryPolicy policy,
            String bundle,
            ProfileRun.Result run,
            BundleWeights weights,
            MachineInfo machine,
            SessionOpenCost sessionCost) {
        this.options = options;
        this.policy = policy;
        this.bundle = bundle;
        this.run = run;
        this.weights = weights;
        this.machine = machine;
        this.sessionCost = sessionCost;
    }

    void print(PrintStream out) {
        out.printf(
                Locale.ROOT,
                "%n== %s, %s, %dx%d, %d steps, %d generations (%s) ==%n",
                options.mode(),
                policy,
                options.size(),
                options.size(),
                options.steps(),
                options.generations(),
                bundle);
        out.printf(
                Locale.ROOT,
                "machine: %d cpus, %s, %.1f GiB, %s; load average %s at start, %s at end%n",
                machine.cpus(),
                machine.cpuModel(),
                machine.memoryBytes() / MIB / 1024,
                machine.jdk(),
                machine.loadAverageAtStart(),
                MachineInfo.currentLoadAverage());
        out.printf(Locale.ROOT, "pipeline build (config, headers, tokenizer): %.0f ms%n", run.openNanos() / 1e6);
        out.printf(
                Locale.ROOT,
                "%4s %9s %10s %10s %10s %10s %10s %10s %10s %7s %9s %9s %9s %7s %7s%n",
                "gen",
                "tokenize",
                "text_enc",
                "vae_enc",
                "denoise",
                "vae_dec",
                "total",
                "runtime",
                "overhead",
                "ovh %",
                "sessions",
                "java",
                "VmRSS MiB",
                "direct",
                "heap");
        for (GenerationSample s : run.samples()) {
            if (options.mode() == ProfileOptions.Mode.RSS_GROWTH
                    && s.index() > 3
                    && s.index() % 10 != 0
                    && s.index() != options.generations()) {
                continue;
            }
            out.printf(
                    Locale.ROOT,
                    "%4d %9.1f %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f %7.2f %9.1f %9.1f %9.0f"
                            + " %7.0f %7.0f%n",
                    s.index(),
                    ms(s, Stage.TOKENIZE),
                    ms(s, Stage.TEXT_ENCODE),
                    ms(s, Stage.VAE_ENCODE),
                    ms(s, Stage.DENOISE),
                    ms(s, Stage.VAE_DECODE),
                    s.timings().total().toNanos() / 1e6,
                    s.timings().runtime().toNanos() / 1e6,
                    s.overheadNanos() / 1e6,
                    s.overheadPercent(),
                    s.sessionNanos().total() / 1e6,
                    s.javaNanos() / 1e6,
                    s.rssBytes() / MIB,
                    s.directBytes() / MIB,
                    s.heapUsedBytes() / MIB);
        }
        Summary all = Summary.of(run.samples());
        out.printf(
                Locale.ROOT,
                "all generations:   total %.1f ms, runtime %.1f ms, overhead %.1f ms = %.2f %%%n",
                all.totalMs,
                all.runtimeMs,
                all.overheadMs,
                all.overheadPercent());
        out.printf(
                Locale.ROOT,
                "  of which session create/close %.1f ms = %.2f %%, Java work %.1f ms = %.2f %%%n",
                all.sessionMs,
                all.percent(all.sessionMs),
                all.javaMs(),
                all.percent(all.javaMs()));
        if (run.samples().size() > 1) {
            Summary warm = Summary.of(run.samples().subList(1, run.samples().size()));
            out.printf(
                    Locale.ROOT,
                    "generations 2..%d: total %.1f ms, runtime %.1f ms, overhead %.1f ms = %.2f %%"
                            + " (target <= %.0f %%: %s)%n",
                    run.samples().size(),
                    warm.totalMs,
                    warm.runtimeMs,
                    warm.overheadMs,
                    warm.overheadPercent(),
                    OVERHEAD_TARGET_PERCENT,
                    verdict(warm.overheadPercent() <= OVERHEAD_TARGET_PERCENT));
            out.printf(
                    Locale.ROOT,
                    "  of which session create/close %.1f ms = %.2f %%, Java work %.1f ms = %.2f %%%n",
                    warm.sessionMs,
                    warm.percent(warm.sessionMs),
                    warm.javaMs(),
                    warm.percent(warm.javaMs()));
        }
        out.printf(
                Locale.ROOT,
                "session creation, measured separately (each graph once, what every SEQUENTIAL"
                        + " generation pays): %.1f ms%n",
                sessionCost.totalNanos() / 1e6);
        sessionCost
                .nanosByGraph()
                .forEach((graph, nanos) -> out.printf(Locale.ROOT, "  %-26s %8.1f ms%n", graph, nanos / 1e6));
        long peak = last().peakRssBytes();
        out.printf(
                Locale.ROOT,
                "peak RSS (VmHWM): %.0f MiB; VmRSS before the pipeline was built: %.0f MiB, after:" + " %.0f MiB%n",
                peak / MIB,
                run.rssBeforeOpenBytes() / MIB,
                run.rssAfterOpenBytes() / MIB);
        Map.Entry<String, Long> largest = weights.largest();
        out.printf(
                Locale.ROOT,
                "largest stage: %s, %.0f MiB of graph + weights (all graphs: %.0f MiB)%n",
                largest.getKey(),
                largest.getValue() / MIB,
                totalWeights() / MIB);
        if (options.mode() == ProfileOptions.Mode.MEMORY) {
            long bound = memoryBound();
            out.printf(
                    Locale.ROOT,
                    "SEQUENTIAL peak RSS %.0f MiB vs 1.3 x %.0f MiB + 300 MiB = %.0f MiB: %s"
                            + " (%+.0f MiB, %.2f x the largest stage)%n",
                    peak / MIB,
                    largest.getValue() / MIB,
                    bound / MIB,
                    verdict(peak <= bound),
                    (peak - bound) / MIB,
                    (double) peak / largest.getValue());
        }
        if (options.mode() == ProfileOptions.Mode.RSS_GROWTH) {
            double growth = rssGrowthPercent();
            out.printf(
                    Locale.ROOT,
                    "VmRSS after generation 1: %.0f MiB, after generation %d: %.0f MiB, growth"
                            + " %.2f %% (target <= %.0f %%: %s)%n",
                    run.samples().get(0).rssBytes() / MIB,
                    run.samples().size(),
                    last().rssBytes() / MIB,
                    growth,
                    RSS_GROWTH_TARGET_PERCENT,
                    verdict(growth <= RSS_GROWTH_TARGET_PERCENT));
            GenerationSample second = run.samples().get(1);
            out.printf(
                    Locale.ROOT,
                    "after a full GC: generation 1 %.0f MiB, generation 2 %.0f MiB, generation %d"
                            + " %.0f MiB: growth %.2f %% from generation 1, %.2f %% from generation 2%n",
                    run.samples().get(0).rssAfterGcBytes() / MIB,
                    second.rssAfterGcBytes() / MIB,
                    run.samples().size(),
                    last().rssAfterGcBytes() / MIB,
                    rssAfterGcGrowthPercent(0),
                    rssAfterGcGrowthPercent(1));
        }
    }

    void writeJson(Path file) {
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode root = mapper.createObjectNode();
        root.put("mode", options.mode().name());
        root.put("policy", policy.name());
        root.put("bundle", bundle);
        root.put("size", options.size());
        root.put("steps", options.steps());
        root.put("generations", options.generations());
        ObjectNode m = root.putObject("machine");
        m.put("cpus", machine.cpus());
        m.put("cpuModel", machine.cpuModel());
        m.put("memoryBytes", machine.memoryBytes());
        m.put("jdk", machine.jdk());
        m.put("loadAverageStart", machine.loadAverageAtStart());
        m.put("loadAverageEnd", MachineInfo.currentLoadAverage());
        root.put("pipelineBuildMs", run.openNanos() / 1e6);
        ArrayNode samples = root.putArray("samples");
        for (GenerationSample s : run.samples()) {
            ObjectNode n = samples.addObject();
            n.put("index", s.index());
            ObjectNode stages = n.putObject("stageMs");
            s.timings().perStage().forEach((stage, d) -> stages.put(stage.name(), d.toNanos() / 1e6));
            n.put("totalMs", s.timings().total().toNanos() / 1e6);
            n.put("runtimeMs", s.timings().runtime().toNanos() / 1e6);
            n.put("overheadMs", s.overheadNanos() / 1e6);
            n.put("overheadPercent", s.overheadPercent());
            n.put("sessionCreateMs", s.sessionNanos().create() / 1e6);
            n.put("sessionCloseMs", s.sessionNanos().close() / 1e6);
            n.put("javaMs", s.javaNanos() / 1e6);
            n.put("wallMs", s.wallNanos() / 1e6);
            n.put("rssBytes", s.rssBytes());
            n.put("peakRssBytes", s.peakRssBytes());
            n.put("directBytes", s.directBytes());
            n.put("heapUsedBytes", s.heapUsedBytes());
            n.put("rssAfterGcBytes", s.rssAfterGcBytes());
        }
        root.put("rssBeforeOpenBytes", run.rssBeforeOpenBytes());
        root.put("rssAfterOpenBytes", run.rssAfterOpenBytes());
        root.put("peakRssBytes", last().peakRssBytes());
        ObjectNode sessions = root.putObject("sessionCreateMs");
        sessionCost.nanosByGraph().forEach((graph, nanos) -> sessions.put(graph, nanos / 1e6));
        root.put("sessionCreateTotalMs", sessionCost.totalNanos() / 1e6);
        ObjectNode w = root.putObject("graphBytes");
        weights.bytesByGraph().forEach(w::put);
        root.put("largestGraph", weights.largest().getKey());
        root.put("largestGraphBytes", weights.largest().getValue());
        if (options.mode() == ProfileOptions.Mode.MEMORY) {
            root.put("memoryBoundBytes", memoryBound());
        }
        if (options.mode() == ProfileOptions.Mode.RSS_GROWTH) {
            root.put("rssGrowthPercent", rssGrowthPercent());
            root.put("rssAfterGcGrowthPercentFromGeneration1", rssAfterGcGrowthPercent(0));
            root.put("rssAfterGcGrowthPercentFromGeneration2", rssAfterGcGrowthPercent(1));
        }
        try {
            mapper.writerWithDefaultPrettyPrinter().writeValue(file.toFile(), root);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    private long memoryBound() {
        return (long) (MEMORY_FACTOR * weights.largest().getValue()) + MEMORY_ALLOWANCE_BYTES;
    }

    private double rssGrowthPercent() {
        long first = run.samples().get(0).rssBytes();
        return 100.0 * (last().rssBytes() - first) / first;
    }

    private double rssAfterGcGrowthPercent(int fromIndex) {
        long from = run.samples().get(fromIndex).rssAfterGcBytes();
        return 100.0 * (last().rssAfterGcBytes() - from) / from;
    }

    private long totalWeights() {
        return weights.bytesByGraph().values().stream()
                .mapToLong(Long::longValue)
                .sum();
    }

    private GenerationSample last() {
        return run.samples().get(run.samples().size() - 1);
    }

    private static double ms(GenerationSample s, Stage stage) {
        return s.timings().of(stage).toNanos() / 1e6;
    }

    private static String verdict(boolean met) {
        return met ? "MET" : "MISSED";
    }

    /** Means of the pipeline's timings over some generations. */
    private static final class Summary {
        private final double totalMs;
        private final double runtimeMs;
        private final double overheadMs;
        private final double sessionMs;

        private Summary(double totalMs, double runtimeMs, double sessionMs) {
            this.totalMs = totalMs;
            this.runtimeMs = runtimeMs;
            this.overheadMs = totalMs - runtimeMs;
            this.sessionMs = sessionMs;
        }

        static Summary of(List<GenerationSample> samples) {
            double total = 0;
            double runtime = 0;
            double sessions = 0;
            for (GenerationSample s : samples) {
                total += s.timings().total().toNanos() / 1e6;
                runtime += s.timings().runtime().toNanos() / 1e6;
                sessions += s.sessionNanos().total() / 1e6;
            }
            int n = samples.size();
            return new Summary(total / n, runtime / n, sessions / n);
        }

        double overheadPercent() {
            return percent(overheadMs);
        }

        double javaMs() {
            return overheadMs - sessionMs;
        }

        double percent(double ms) {
            return 100.0 * ms / totalMs;
        }
    }
}
