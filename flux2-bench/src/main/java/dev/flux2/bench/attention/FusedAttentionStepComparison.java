package dev.flux2.bench.attention;

import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnxruntime.OnnxJavaType;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.platform.Fp16Conversions;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.CodedInputStream;
import dev.flux2.onnx.attention.AttentionFuser;
import dev.flux2.testkit.timing.TimingTransformerSpec;
import dev.flux2.testkit.timing.TimingTransformerWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The klein-architecture timing transformer (random 4-bit weights, the seed's attention form) per denoiser step,
 * graph against fused attention, in one JVM, alternating step by step so that a shared machine's load affects both
 * alike. Runs the graphs directly through ONNX Runtime (no bundle, no pipeline), on the CPU or on WebGPU, so it can
 * be carried to a GPU machine as one jar. Prints each pair, the median ratio, the fused prediction's relative RMS
 * difference from the graph's, and with {@code --profile} ONNX Runtime's time per operator type of one step each.
 *
 * <pre>java -Xmx8g -cp flux2-bench/target/benchmarks.jar dev.flux2.bench.attention.FusedAttentionStepComparison \
 *     [--size 512[,1024]] [--blocks 5+20] [--provider cpu|webgpu] [--pairs 3] [--threads 0] [--text 512] \
 *     [--width klein|tiny] [--profile] [--dir DIR]</pre>
 *
 * <p>{@code --dir} keeps the written graphs there and reuses them in a later run (writing the klein-width weights
 * takes a while); without it they go to a temporary folder deleted at the end. With {@code --profile} the sessions
 * are profiled and the breakdown is that of each session's last step.
 *
 * <p>WebGPU needs an ONNX Runtime built with it, for example the onnxruntime-node package's library loaded with
 * {@code -Donnxruntime.native.onnxruntime.path=<dir>} (docs/fused-attention.md).
 */
public final class FusedAttentionStepComparison {
    private FusedAttentionStepComparison() {}

    /**
     * @param args options, see the class comment
     * @throws Exception when writing, opening or running fails
     */
    public static void main(String[] args) throws Exception {
        String sizes = "512";
        Path keep = null;
        String blocks = "5+20";
        String provider = "cpu";
        int pairs = 3;
        int threads = 0;
        int text = 512;
        String width = "klein";
        boolean profile = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--size" -> sizes = args[++i];
                case "--dir" -> keep = Path.of(args[++i]);
                case "--blocks" -> blocks = args[++i];
                case "--provider" -> provider = args[++i];
                case "--pairs" -> pairs = Integer.parseInt(args[++i]);
                case "--threads" -> threads = Integer.parseInt(args[++i]);
                case "--text" -> text = Integer.parseInt(args[++i]);
                case "--width" -> width = args[++i];
                case "--profile" -> profile = true;
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        String[] db = blocks.split("\\+");
        TimingTransformerSpec.Builder sb =
                TimingTransformerSpec.builder().blocks(Integer.parseInt(db[0]), Integer.parseInt(db[1]));
        if (width.equals("tiny")) {
            sb.heads(2).contextDim(64);
        }
        TimingTransformerSpec spec = sb.build();
        Path dir = keep != null ? Files.createDirectories(keep) : Files.createTempDirectory("flux2-attn-step");
        try {
            long t0 = System.nanoTime();
            Path graphFile = existingGraph(dir);
            if (graphFile == null) {
                graphFile = TimingTransformerWriter.write(spec, dir).graphFile();
            }
            Path fusedFile = graphFile.resolveSibling("fused.onnx");
            AttentionFuser.Result fusion = fuse(graphFile, fusedFile);
            System.out.printf(
                    Locale.ROOT,
                    "timing transformer %s, provider %s, threads %d; written (or found) and fused in %.1f s: %s%n",
                    spec,
                    provider,
                    threads,
                    (System.nanoTime() - t0) / 1e9,
                    fusion.describe());
            OrtEnvironment env = OrtEnvironment.getEnvironment();
            try (Step graph = new Step(env, graphFile, provider, threads, profile ? dir.resolve("graph") : null);
                    Step fused = new Step(env, fusedFile, provider, threads, profile ? dir.resolve("fused") : null)) {
                for (String sz : sizes.split(",")) {
                    compare(env, graph, fused, Integer.parseInt(sz.trim()), text, spec.contextDim(), pairs);
                }
                if (profile) {
                    System.out.println("graph profile (last step):");
                    printProfile(graph.endProfiling());
                    System.out.println("fused profile (last step):");
                    printProfile(fused.endProfiling());
                }
            }
        } finally {
            if (keep == null) {
                try (Stream<Path> s = Files.walk(dir)) {
                    s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        }
    }

    private static void compare(
            OrtEnvironment env, Step graph, Step fused, int size, int text, int contextDim, int pairs)
            throws OrtException {
        int imageTokens = (size / 16) * (size / 16);
        Map<String, OnnxTensor> inputs = inputs(env, imageTokens, text, contextDim);
        try {
            long w = System.nanoTime();
            float[] a = graph.run(inputs);
            double graphFirst = (System.nanoTime() - w) / 1e6;
            w = System.nanoTime();
            float[] b = fused.run(inputs);
            double fusedFirst = (System.nanoTime() - w) / 1e6;
            System.out.printf(
                    Locale.ROOT,
                    "%dx%d (%d image + %d text tokens): first step graph %.0f ms, fused %.0f ms; fused vs graph"
                            + " prediction: relative RMS %.3g (graph's RMS %.3g, non-finite %d)%n",
                    size,
                    size,
                    imageTokens,
                    text,
                    graphFirst,
                    fusedFirst,
                    relativeRms(a, b),
                    Math.sqrt(java.util.stream.IntStream.range(0, a.length)
                                    .mapToDouble(i -> a[i] * (double) a[i])
                                    .sum()
                            / a.length),
                    java.util.stream.IntStream.range(0, a.length)
                            .filter(i -> !Float.isFinite(a[i]) || !Float.isFinite(b[i]))
                            .count());
            System.out.println("size\tpair\tgraph_ms\tfused_ms\tratio\tload1");
            List<Double> ratios = new ArrayList<>();
            List<Double> fusedMs = new ArrayList<>();
            List<Double> graphMs = new ArrayList<>();
            for (int p = 1; p <= pairs; p++) {
                double g;
                double f;
                if (p % 2 == 1) {
                    g = graph.time(inputs);
                    f = fused.time(inputs);
                } else {
                    f = fused.time(inputs);
                    g = graph.time(inputs);
                }
                ratios.add(g / f);
                graphMs.add(g);
                fusedMs.add(f);
                System.out.printf(
                        Locale.ROOT,
                        "%d\t%d\t%.0f\t%.0f\t%.3f\t%.2f%n",
                        size,
                        p,
                        g,
                        f,
                        g / f,
                        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
            }
            System.out.printf(
                    Locale.ROOT,
                    "%dx%d median: graph %.0f ms, fused %.0f ms, ratio graph/fused %.3f%n",
                    size,
                    size,
                    median(graphMs),
                    median(fusedMs),
                    median(ratios));
        } finally {
            inputs.values().forEach(OnnxTensor::close);
        }
    }

    /** @return the timing transformer graph a previous run left in the folder, or null */
    private static Path existingGraph(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(".onnx")
                            && !p.getFileName().toString().equals("fused.onnx"))
                    .findFirst()
                    .orElse(null);
        }
    }

    private static AttentionFuser.Result fuse(Path source, Path target) throws IOException {
        ModelProto model;
        try (InputStream in = Files.newInputStream(source)) {
            CodedInputStream coded = CodedInputStream.newInstance(in);
            coded.setSizeLimit(Integer.MAX_VALUE);
            model = ModelProto.parseFrom(coded);
        }
        AttentionFuser.Fusion f = AttentionFuser.fuse(model);
        try (OutputStream out = Files.newOutputStream(target)) {
            f.model().writeTo(out);
        }
        return f.result();
    }

    private static Map<String, OnnxTensor> inputs(OrtEnvironment env, int tokens, int text, int contextDim)
            throws OrtException {
        SplittableRandom rnd = new SplittableRandom(3);
        int side = (int) Math.round(Math.sqrt(tokens));
        float[] xIds = new float[tokens * 4];
        for (int t = 0; t < tokens; t++) {
            xIds[t * 4 + 1] = t / side;
            xIds[t * 4 + 2] = t % side;
        }
        float[] ctxIds = new float[text * 4];
        for (int t = 0; t < text; t++) {
            ctxIds[t * 4 + 3] = t;
        }
        Map<String, OnnxTensor> in = new HashMap<>();
        in.put("x", half(env, rnd, tokens * 128, 1, tokens, 128));
        in.put("ctx", half(env, rnd, text * contextDim, 1, text, contextDim));
        in.put("timesteps", half(env, rnd, 1, 1));
        in.put("x_ids", OnnxTensor.createTensor(env, FloatBuffer.wrap(xIds), new long[] {1, tokens, 4}));
        in.put("ctx_ids", OnnxTensor.createTensor(env, FloatBuffer.wrap(ctxIds), new long[] {1, text, 4}));
        return in;
    }

    private static OnnxTensor half(OrtEnvironment env, SplittableRandom rnd, int n, long... shape) throws OrtException {
        ByteBuffer b = ByteBuffer.allocateDirect(n * 2).order(ByteOrder.nativeOrder());
        for (int i = 0; i < n; i++) {
            b.putShort(Fp16Conversions.floatToFp16((float) rnd.nextDouble()));
        }
        b.rewind();
        return OnnxTensor.createTensor(env, b, shape, OnnxJavaType.FLOAT16);
    }

    private static double relativeRms(float[] a, float[] b) {
        double num = 0;
        double den = 0;
        for (int i = 0; i < a.length; i++) {
            num += (a[i] - b[i]) * (double) (a[i] - b[i]);
            den += a[i] * (double) a[i];
        }
        return Math.sqrt(num / den);
    }

    private static double median(List<Double> values) {
        double[] s = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    /** Milliseconds per operator type in an ONNX Runtime profile, largest first, with shares. */
    private static void printProfile(Path json) throws IOException {
        JsonNode events = new ObjectMapper().readTree(json.toFile());
        long lastRun = 0;
        for (JsonNode e : events) {
            if ("model_run".equals(e.path("name").asText())) {
                lastRun = Math.max(lastRun, e.path("ts").asLong());
            }
        }
        Map<String, Long> byOp = new TreeMap<>();
        long total = 0;
        for (JsonNode e : events) {
            if ("Node".equals(e.path("cat").asText())
                    && e.path("name").asText().endsWith("_kernel_time")
                    && e.path("ts").asLong() >= lastRun) {
                long dur = e.path("dur").asLong();
                byOp.merge(e.path("args").path("op_name").asText("?"), dur, Long::sum);
                total += dur;
            }
        }
        long all = Math.max(total, 1);
        byOp.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .limit(10)
                .forEach(e -> System.out.printf(
                        Locale.ROOT,
                        "  %-22s %9.1f ms %5.1f %%%n",
                        e.getKey(),
                        e.getValue() / 1e3,
                        100.0 * e.getValue() / all));
        System.out.printf(Locale.ROOT, "  %-22s %9.1f ms%n", "total (kernels)", total / 1e3);
    }

    /** One session over one graph, its inputs bound by name. */
    private static final class Step implements AutoCloseable {
        private final OrtSession.SessionOptions options;
        private final OrtSession session;

        Step(OrtEnvironment env, Path graph, String provider, int threads, Path profilePrefix) throws OrtException {
            options = new OrtSession.SessionOptions();
            if (threads > 0) {
                options.setIntraOpNumThreads(threads);
            }
            switch (provider) {
                case "cpu" -> {
                    // CPU only.
                }
                case "webgpu" -> options.addWebGPU(Map.of());
                case "cuda" -> options.addCUDA(0);
                default -> throw new IllegalArgumentException("provider must be cpu, webgpu or cuda: " + provider);
            }
            if (profilePrefix != null) {
                options.enableProfiling(profilePrefix.toString());
            }
            session = env.createSession(graph.toString(), options);
        }

        float[] run(Map<String, OnnxTensor> inputs) throws OrtException {
            try (OrtSession.Result r = session.run(inputs)) {
                ByteBuffer out = ((OnnxTensor) r.get("pred").orElseThrow())
                        .getByteBuffer()
                        .order(ByteOrder.nativeOrder());
                float[] y = new float[out.remaining() / 2];
                for (int i = 0; i < y.length; i++) {
                    y[i] = Fp16Conversions.fp16ToFloat(out.getShort());
                }
                return y;
            }
        }

        double time(Map<String, OnnxTensor> inputs) throws OrtException {
            long start = System.nanoTime();
            try (OrtSession.Result r = session.run(inputs)) {
                return (System.nanoTime() - start) / 1e6;
            }
        }

        Path endProfiling() throws OrtException {
            return Path.of(session.endProfiling());
        }

        @Override
        public void close() throws OrtException {
            session.close();
            options.close();
        }
    }
}
