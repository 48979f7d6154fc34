package dev.flux2.bench.profile;

import ai.onnxruntime.OrtEnvironment;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flux2.api.MemoryPolicy;
import dev.flux2.onnx.BackendAssembly;
import dev.flux2.onnx.bundle.OnnxBundle;
import dev.flux2.onnx.options.OnnxOptions;
import dev.flux2.onnx.options.OptimizationLevel;
import dev.flux2.onnx.session.ManagedSession;
import dev.flux2.onnx.session.NativeHeapTrim;
import dev.flux2.onnx.session.SessionFactory;
import dev.flux2.onnx.session.SharedEnvironment;
import dev.flux2.onnx.stage.SessionSpecs;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import dev.flux2.tokenizer.Qwen3PromptTokenizer;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Memory of single parts, in one JVM per invocation (VmHWM is per process): the tokenizer (load, close,
 * {@code malloc_trim}, reload cycles) and the creation of one graph's session through the backend's
 * {@link SessionFactory} with optional ONNX Runtime config entries. Every phase prints VmRSS and the peak since the
 * phase began ({@code /proc/self/clear_refs}). Run without arguments for the usage. Linux with glibc only.
 */
public final class MemoryProbe {
    private static final double MIB = 1024.0 * 1024.0;
    private static final String USAGE = String.join(
            "\n",
            "usage: java -cp benchmarks.jar dev.flux2.bench.profile.MemoryProbe COMMAND DIR [options]",
            "  write DIR [--padding-bytes N]      write the synthetic 512x512 bundle with N extra transformer",
            "                                      weight bytes (default 1 GiB) into DIR",
            "  tokenizer DIR [--cycles N] [--trim] load, use and close the bundle's tokenizer N times (default 3),",
            "                                      with malloc_trim(0) after each load and close",
            "  session DIR [--graph KEY] [--config KEY=VALUE]... [--level LEVEL] [--tokenizer] [--trim]",
            "          [--threads N]               create and close one session (default graph transformer); with",
            "                                      --tokenizer the tokenizer is loaded first and held, with --trim",
            "                                      malloc_trim(0) runs just before the session is created",
            "  every command takes --json FILE");

    private final ObjectNode root = new ObjectMapper().createObjectNode();
    private final ArrayNode phases = root.putArray("phases");
    private long phaseStart;

    private MemoryProbe(String command, Path dir) {
        root.put("command", command);
        root.put("bundle", dir.toString());
        root.put("loadAverageStart", MachineInfo.currentLoadAverage());
    }

    /**
     * @param args see the usage
     * @throws IOException when the JSON cannot be written
     */
    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            System.out.println(USAGE);
            return;
        }
        String command = args[0];
        Path dir = Path.of(args[1]);
        Map<String, String> options = new LinkedHashMap<>();
        Map<String, String> config = new LinkedHashMap<>();
        for (int i = 2; i < args.length; i++) {
            String key = args[i];
            if (key.equals("--trim") || key.equals("--tokenizer")) {
                options.put(key, "true");
            } else if (i + 1 < args.length) {
                String value = args[++i];
                if (key.equals("--config")) {
                    int eq = value.indexOf('=');
                    if (eq < 1) {
                        throw new IllegalArgumentException("--config needs KEY=VALUE, got " + value);
                    }
                    config.put(value.substring(0, eq), value.substring(eq + 1));
                } else {
                    options.put(key, value);
                }
            } else {
                throw new IllegalArgumentException("option " + key + " needs a value\n" + USAGE);
            }
        }
        MemoryProbe probe = new MemoryProbe(command, dir);
        switch (command) {
            case "write" ->
                write(dir, Long.parseLong(options.getOrDefault("--padding-bytes", Long.toString(1L << 30))));
            case "tokenizer" ->
                probe.tokenizer(
                        dir, Integer.parseInt(options.getOrDefault("--cycles", "3")), options.containsKey("--trim"));
            case "session" -> probe.session(dir, options, config);
            default -> throw new IllegalArgumentException("unknown command " + command + "\n" + USAGE);
        }
        if (options.containsKey("--json")) {
            probe.root.put("loadAverageEnd", MachineInfo.currentLoadAverage());
            new ObjectMapper()
                    .writerWithDefaultPrettyPrinter()
                    .writeValue(Path.of(options.get("--json")).toFile(), probe.root);
        }
    }

    private static void write(Path dir, long padding) {
        SyntheticBundleSpec spec = SyntheticBundleSpec.builder()
                .defaultSize(512, 512)
                .transformerPaddingBytes(padding)
                .build();
        SyntheticBundleWriter.write(spec, dir);
        System.out.println("wrote " + spec + " to " + dir);
    }

    private void tokenizer(Path dir, int cycles, boolean trim) {
        OnnxBundle bundle = OnnxBundle.load(dir);
        OrtEnvironment env = SharedEnvironment.get();
        root.put("environment", env.toString());
        Path tokenizerDir = dir.resolve(bundle.config().text().tokenizerDir());
        int length = bundle.config().text().sequenceLength();
        begin();
        phase("start (ONNX Runtime loaded, config read)", 0);
        for (int c = 1; c <= cycles; c++) {
            begin();
            long start = System.nanoTime();
            Qwen3PromptTokenizer tokenizer = Qwen3PromptTokenizer.load(tokenizerDir, length);
            long loaded = System.nanoTime() - start;
            tokenizer.tokenize(ProfileRun.PROMPT);
            phase("cycle " + c + ": loaded and used", loaded);
            if (trim) {
                begin();
                start = System.nanoTime();
                boolean released = NativeHeapTrim.trim();
                phase(
                        "cycle " + c + ": malloc_trim(0), still open: " + (released ? "released" : "nothing"),
                        System.nanoTime() - start);
            }
            begin();
            start = System.nanoTime();
            tokenizer.close();
            phase("cycle " + c + ": closed", System.nanoTime() - start);
            if (trim) {
                begin();
                start = System.nanoTime();
                boolean released = NativeHeapTrim.trim();
                phase(
                        "cycle " + c + ": malloc_trim(0), closed: " + (released ? "released" : "nothing"),
                        System.nanoTime() - start);
            }
        }
    }

    private void session(Path dir, Map<String, String> options, Map<String, String> config) {
        OnnxBundle bundle = OnnxBundle.load(dir);
        Optional<OptimizationLevel> level =
                Optional.ofNullable(options.get("--level")).map(OptimizationLevel::parse);
        String key = options.getOrDefault("--graph", "transformer");
        ObjectNode c = root.putObject("configEntries");
        config.forEach(c::put);
        root.put("graph", key);
        root.put("level", level.map(Enum::name).orElse("config"));
        OnnxOptions.Builder onnx = OnnxOptions.builder()
                .threads(Integer.parseInt(options.getOrDefault("--threads", "0")))
                .pinDimensions(false);
        level.ifPresent(onnx::graphOptimizationLevel);
        // As the backend assembles them, with the probe's session config entries added.
        BackendAssembly assembly = BackendAssembly.assemble(bundle, onnx.build(), MemoryPolicy.SEQUENTIAL, config);
        SessionFactory factory = assembly.sessionFactory();
        SessionSpecs specs = assembly.specs();
        Qwen3PromptTokenizer tokenizer = null;
        begin();
        if (options.containsKey("--tokenizer")) {
            tokenizer = Qwen3PromptTokenizer.load(
                    dir.resolve(bundle.config().text().tokenizerDir()),
                    bundle.config().text().sequenceLength());
            tokenizer.tokenize(ProfileRun.PROMPT);
            phase("tokenizer loaded and held", 0);
        } else {
            phase("start (ONNX Runtime loaded, config read)", 0);
        }
        try {
            if (options.containsKey("--trim")) {
                begin();
                long start = System.nanoTime();
                boolean released = NativeHeapTrim.trim();
                phase("malloc_trim(0): " + (released ? "released" : "nothing"), System.nanoTime() - start);
            }
            begin();
            long start = System.nanoTime();
            ManagedSession session = factory.open(specs.forInputs(key, Map.of()));
            phase("session " + key + " created", System.nanoTime() - start);
            begin();
            start = System.nanoTime();
            session.close();
            phase("session closed", System.nanoTime() - start);
        } finally {
            if (tokenizer != null) {
                tokenizer.close();
            }
        }
    }

    private void begin() {
        ProcStatus.resetPeak();
        phaseStart = ProcStatus.rssBytes();
    }

    private void phase(String name, long nanos) {
        long rss = ProcStatus.rssBytes();
        long peak = ProcStatus.peakRssBytes();
        long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getCommitted();
        System.out.printf(
                Locale.ROOT,
                "%-44s %7.1f ms  VmRSS %5.0f -> %5.0f MiB (%+5.0f), peak %5.0f MiB (%+5.0f),"
                        + " heap committed %4.0f MiB%n",
                name,
                nanos / 1e6,
                phaseStart / MIB,
                rss / MIB,
                (rss - phaseStart) / MIB,
                peak / MIB,
                (peak - phaseStart) / MIB,
                heap / MIB);
        ObjectNode n = phases.addObject();
        n.put("phase", name);
        n.put("ms", nanos / 1e6);
        n.put("rssBeforeBytes", phaseStart);
        n.put("rssAfterBytes", rss);
        n.put("peakRssBytes", peak);
        n.put("heapCommittedBytes", heap);
    }
}
