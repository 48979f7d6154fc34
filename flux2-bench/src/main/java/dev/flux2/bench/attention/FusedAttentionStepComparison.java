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
import dev.flux2.onnx.passes.MhaFusion;
import dev.flux2.onnx.passes.MhaPrecision;
import dev.flux2.onnx.passes.MhaResult;
import dev.flux2.onnx.passes.WeightDequantization;
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
import java.util.Set;
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
 *     [--width klein|tiny] [--fusions fp32,fp16|none] [--block 16] [--dequantized] [--profile] [--dir DIR]</pre>
 *
 * <p>{@code --dequantized} adds the graph with its block-16 weight products dequantized in the graph ({@link
 * WeightDequantization}), as {@code dq}, and each MHA fusion over it, as {@code dq-<precision>}.
 *
 * <p>{@code --acc0} runs the graph with every {@code MatMulNBits} at accuracy level 0 (fp32 compute; a CPU reference);
 * {@code --save DIR} writes each first prediction to {@code DIR/<label>-<size>.f32}; {@code --against DIR} prints
 * each prediction's relative RMS difference from a saved {@code graph-<size>.f32} (another provider's, say).
 *
 * <p>{@code --block} writes the weights with another MatMulNBits block size (the seed's export uses 16), to measure
 * what the weight products cost at other block sizes.
 *
 * <p>{@code --fusions} names the MHA fusions compared with the graph, by the precision of the fused node ({@link
 * MhaPrecision}: {@code fp32}, {@code fp16}); each pair line then has one time per fusion, the ratio being graph
 * over the first. (Until 2026-12-04 it was {@code --layouts batch_heads,bsnh}; the BSNH layout measured alike on
 * ONNX Runtime 1.26, docs/fused-attention.md §5.2, and was removed.)
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
        String fusions = "fp32";
        int block = 16;
        boolean dequantized = false;
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
                case "--fusions" -> fusions = args[++i];
                case "--block" -> block = Integer.parseInt(args[++i]);
                case "--dequantized" -> dequantized = true;
                case "--acc0" -> acc0 = true;
                case "--save" -> save = Files.createDirectories(Path.of(args[++i]));
                case "--against" -> against = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        String[] db = blocks.split("\\+");
        TimingTransformerSpec.Builder sb =
                TimingTransformerSpec.builder().blocks(Integer.parseInt(db[0]), Integer.parseInt(db[1]));
        if (width.equals("tiny")) {
            sb.heads(2).contextDim(64);
        }
        sb.blockSize(block);
        TimingTransformerSpec spec = sb.build();
        Path dir = keep != null ? Files.createDirectories(keep) : Files.createTempDirectory("flux2-attn-step");
        try {
            long t0 = System.nanoTime();
            Path graphFile = existingGraph(dir);
            if (graphFile == null) {
                graphFile = TimingTransformerWriter.write(spec, dir).graphFile();
            }
            if (acc0) {
                graphFile = accuracyZero(graphFile, graphFile.resolveSibling("acc0-graph.onnx"));
            }
            List<String> chosen = new ArrayList<>();
            List<Path> fusedFiles = new ArrayList<>();
            StringBuilder described = new StringBuilder();
            List<Path> sources = new ArrayList<>(List.of(graphFile));
            if (dequantized) {
                Path dq = graphFile.resolveSibling("dq-graph.onnx");
                described
                        .append(" dequantized: ")
                        .append(dequantize(graphFile, dq, false).describe())
                        .append(';');
                chosen.add("dq");
                fusedFiles.add(dq);
                sources.add(dq);
                // the same with the products computed in fp32
                Path dq32 = graphFile.resolveSibling("dq32-graph.onnx");
                dequantize(graphFile, dq32, true);
                chosen.add("dq32");
                fusedFiles.add(dq32);
                sources.add(dq32);
            }
            for (Path source : sources) {
                String prefix = source.equals(graphFile)
                        ? ""
                        : source.getFileName().toString().replace("-graph.onnx", "") + "-";
                for (String l : fusions.equals("none") ? new String[0] : fusions.split(",")) {
                    MhaPrecision precision = MhaPrecision.valueOf(l.trim().toUpperCase(Locale.ROOT));
                    String label = prefix + "mha-" + precision.name().toLowerCase(Locale.ROOT);
                    Path fusedFile = graphFile.resolveSibling("fused-" + label + ".onnx");
                    MhaResult fusion = fuse(source, fusedFile, precision);
                    chosen.add(label);
                    fusedFiles.add(fusedFile);
                    described
                            .append(" ")
                            .append(label)
                            .append(": ")
                            .append(fusion.describe())
                            .append(';');
                }
            }
            System.out.printf(
                    Locale.ROOT,
                    "timing transformer %s, provider %s, threads %d; written (or found) and fused in %.1f s:%s%n",
                    spec,
                    provider,
                    threads,
                    (System.nanoTime() - t0) / 1e9,
                    described);
            OrtEnvironment env = OrtEnvironment.getEnvironment();
            List<Step> fused = new ArrayList<>();
            try (Step graph = new Step(env, graphFile, provider, threads, profile ? dir.resolve("graph") : null)) {
                for (int i = 0; i < fusedFiles.size(); i++) {
                    String name = chosen.get(i);
                    fused.add(new Step(env, fusedFiles.get(i), provider, threads, profile ? dir.resolve(name) : null));
                }
                for (String sz : sizes.split(",")) {
                    compare(env, graph, fused, chosen, Integer.parseInt(sz.trim()), text, spec.contextDim(), pairs);
                }
                if (profile) {
                    System.out.println("graph profile (last step):");
                    printProfile(graph.endProfiling());
                    for (int i = 0; i < fused.size(); i++) {
                        System.out.println("fused " + chosen.get(i) + " profile (last step):");
                        printProfile(fused.get(i).endProfiling());
                    }
                }
            } finally {
                for (Step st : fused) {
                    st.close();
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
            OrtEnvironment env,
            Step graph,
            List<Step> fused,
            List<String> layouts,
            int size,
            int text,
            int contextDim,
            int pairs)
            throws OrtException {
        int imageTokens = (size / 16) * (size / 16);
        Map<String, OnnxTensor> inputs = inputs(env, imageTokens, text, contextDim);
        try {
            long w = System.nanoTime();
            float[] a = graph.run(inputs);
            keep("graph", size, a);
            double graphFirst = (System.nanoTime() - w) / 1e6;
            for (int i = 0; i < fused.size(); i++) {
                w = System.nanoTime();
                float[] b = fused.get(i).run(inputs);
                keep(layouts.get(i), size, b);
                double fusedFirst = (System.nanoTime() - w) / 1e6;
                System.out.printf(
                        Locale.ROOT,
                        "%dx%d (%d image + %d text tokens): first step graph %.0f ms, fused %s %.0f ms; fused vs"
                                + " graph prediction: relative RMS %.3g (graph's RMS %.3g, non-finite %d)%n",
                        size,
                        size,
                        imageTokens,
                        text,
                        graphFirst,
                        layouts.get(i),
                        fusedFirst,
                        relativeRms(a, b),
                        Math.sqrt(java.util.stream.IntStream.range(0, a.length)
                                        .mapToDouble(j -> a[j] * (double) a[j])
                                        .sum()
                                / a.length),
                        java.util.stream.IntStream.range(0, a.length)
                                .filter(j -> !Float.isFinite(a[j]) || !Float.isFinite(b[j]))
                                .count());
            }
            StringBuilder header = new StringBuilder("size\tpair\tgraph_ms");
            layouts.forEach(l -> header.append("\t").append(l).append("_ms"));
            System.out.println(header + "\tratio\tload1");
            List<Double> graphMs = new ArrayList<>();
            List<List<Double>> fusedMs = new ArrayList<>();
            fused.forEach(f -> fusedMs.add(new ArrayList<>()));
            if (fused.isEmpty() || pairs == 0) {
                return;
            }
            for (int p = 1; p <= pairs; p++) {
                double g = 0;
                double[] f = new double[fused.size()];
                if (p % 2 == 1) {
                    g = graph.time(inputs);
                }
                for (int i = 0; i < fused.size(); i++) {
                    int j = p % 2 == 1 ? i : fused.size() - 1 - i;
                    f[j] = fused.get(j).time(inputs);
                }
                if (p % 2 == 0) {
                    g = graph.time(inputs);
                }
                graphMs.add(g);
                StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%d\t%d\t%.0f", size, p, g));
                for (int i = 0; i < f.length; i++) {
                    fusedMs.get(i).add(f[i]);
                    line.append(String.format(Locale.ROOT, "\t%.0f", f[i]));
                }
                line.append(String.format(
                        Locale.ROOT,
                        "\t%.3f\t%.2f",
                        g / f[0],
                        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage()));
                System.out.println(line);
            }
            for (int i = 0; i < fused.size(); i++) {
                System.out.printf(
                        Locale.ROOT,
                        "%dx%d median: graph %.0f ms, fused %s %.0f ms, ratio graph/fused %.3f%n",
                        size,
                        size,
                        median(graphMs),
                        layouts.get(i),
                        median(fusedMs.get(i)),
                        median(graphMs) / median(fusedMs.get(i)));
            }
        } finally {
            inputs.values().forEach(OnnxTensor::close);
        }
    }

    /** @return the timing transformer graph a previous run left in the folder, or null */
    private static Path existingGraph(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(".onnx")
                            && !p.getFileName().toString().startsWith("fused")
                            && !p.getFileName().toString().startsWith("dq")
                            && !p.getFileName().toString().startsWith("acc0"))
                    .findFirst()
                    .orElse(null);
        }
    }

    private static WeightDequantization.Result dequantize(Path source, Path target, boolean fp32) throws IOException {
        ModelProto model;
        try (InputStream in = Files.newInputStream(source)) {
            CodedInputStream coded = CodedInputStream.newInstance(in);
            coded.setSizeLimit(Integer.MAX_VALUE);
            model = ModelProto.parseFrom(coded);
        }
        WeightDequantization.Rewrite r = WeightDequantization.dequantize(model, Set.of(16), fp32);
        try (OutputStream out = Files.newOutputStream(target)) {
            r.model().writeTo(out);
        }
        return r.result();
    }

    private static MhaResult fuse(Path source, Path target, MhaPrecision precision) throws IOException {
        ModelProto model;
        try (InputStream in = Files.newInputStream(source)) {
            CodedInputStream coded = CodedInputStream.newInstance(in);
            coded.setSizeLimit(Integer.MAX_VALUE);
            model = ModelProto.parseFrom(coded);
        }
        MhaFusion.Fused f = MhaFusion.fuse(model, precision);
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

    /** {@code --save}: writes the prediction; {@code --against}: prints its difference from a saved graph's. */
    private static void keep(String label, int size, float[] pred) {
        try {
            if (save != null) {
                ByteBuffer b = ByteBuffer.allocate(pred.length * 4).order(ByteOrder.LITTLE_ENDIAN);
                b.asFloatBuffer().put(pred);
                Files.write(save.resolve(label + "-" + size + ".f32"), b.array());
            }
            if (against != null) {
                Path ref = against.resolve("graph-" + size + ".f32");
                java.nio.FloatBuffer fb = ByteBuffer.wrap(Files.readAllBytes(ref))
                        .order(ByteOrder.LITTLE_ENDIAN)
                        .asFloatBuffer();
                float[] r = new float[fb.remaining()];
                fb.get(r);
                System.out.printf(
                        Locale.ROOT,
                        "%dx%d %s vs the reference %s: relative RMS %.3g%n",
                        size,
                        size,
                        label,
                        ref,
                        relativeRms(r, pred));
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** {@code --acc0}: the graph with every MatMulNBits at accuracy level 0 (fp32 compute), as a CPU reference. */
    private static Path accuracyZero(Path source, Path target) throws IOException {
        ModelProto model;
        try (InputStream in = Files.newInputStream(source)) {
            CodedInputStream coded = CodedInputStream.newInstance(in);
            coded.setSizeLimit(Integer.MAX_VALUE);
            model = ModelProto.parseFrom(coded);
        }
        ai.onnx.proto.OnnxMl.GraphProto.Builder g = model.getGraph().toBuilder();
        for (int i = 0; i < g.getNodeCount(); i++) {
            ai.onnx.proto.OnnxMl.NodeProto.Builder n = g.getNode(i).toBuilder();
            for (int j = 0; j < n.getAttributeCount(); j++) {
                if (n.getOpType().equals("MatMulNBits")
                        && n.getAttribute(j).getName().equals("accuracy_level")) {
                    n.setAttribute(j, n.getAttribute(j).toBuilder().setI(0));
                }
            }
            g.setNode(i, n);
        }
        try (OutputStream out = Files.newOutputStream(target)) {
            model.toBuilder().setGraph(g).build().writeTo(out);
        }
        return target;
    }

    private static Path save;
    private static Path against;
    private static boolean acc0;

    private static double median(List<Double> values) {
        double[] s = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    /**
     * Milliseconds per operator type in an ONNX Runtime profile, largest first, with shares: GPU time from the WebGPU
     * provider's timestamp events (category {@code Api}, one per shader program, named {@code node&op&program}) where
     * the profile has them, else the {@code Node} events' kernel times, which on WebGPU are the CPU side's dispatch
     * and waits, not the GPU's work.
     */
    private static void printProfile(Path json) throws IOException {
        JsonNode events = new ObjectMapper().readTree(json.toFile());
        long lastRun = 0;
        int runs = 0;
        List<JsonNode> gpu = new ArrayList<>();
        for (JsonNode e : events) {
            if ("model_run".equals(e.path("name").asText())) {
                lastRun = Math.max(lastRun, e.path("ts").asLong());
                runs++;
            }
            if ("Api".equals(e.path("cat").asText())) {
                gpu.add(e);
            }
        }
        Map<String, Long> byOp = new TreeMap<>();
        long total = 0;
        if (!gpu.isEmpty()) {
            // One timestamp event per program per run, in order: the last run's are the last 1/runs of them.
            for (JsonNode e : gpu.subList(gpu.size() - gpu.size() / Math.max(runs, 1), gpu.size())) {
                String[] parts = e.path("name").asText().split("&");
                String key = parts.length > 2
                        ? parts[1] + "/" + parts[2]
                        : e.path("name").asText();
                long dur = e.path("dur").asLong();
                byOp.merge(key, dur, Long::sum);
                total += dur;
            }
            System.out.println("  (GPU time per operator/program, WebGPU timestamps)");
        } else {
            for (JsonNode e : events) {
                if ("Node".equals(e.path("cat").asText())
                        && e.path("name").asText().endsWith("_kernel_time")
                        && e.path("ts").asLong() >= lastRun) {
                    long dur = e.path("dur").asLong();
                    byOp.merge(e.path("args").path("op_name").asText("?"), dur, Long::sum);
                    total += dur;
                }
            }
        }
        long all = Math.max(total, 1);
        byOp.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .limit(12)
                .forEach(e -> System.out.printf(
                        Locale.ROOT,
                        "  %-36s %9.1f ms %5.1f %%%n",
                        e.getKey(),
                        e.getValue() / 1e3,
                        100.0 * e.getValue() / all));
        System.out.printf(Locale.ROOT, "  %-36s %9.1f ms%n", "total", total / 1e3);
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
