package dev.flux2.bench.cuda;

import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnxruntime.OnnxJavaType;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.platform.Fp16Conversions;
import ai.onnxruntime.providers.OrtCUDAProviderOptions;
import com.google.protobuf.CodedInputStream;
import dev.flux2.onnx.passes.MhaFusion;
import dev.flux2.onnx.passes.MhaPrecision;
import dev.flux2.onnx.passes.PassOutcome;
import dev.flux2.onnx.passes.RopeFusion;
import dev.flux2.testkit.timing.TimingTransformerSpec;
import dev.flux2.testkit.timing.TimingTransformerWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * One denoiser step of the klein-width timing transformer (random 4-bit weights; the testkit's
 * {@link TimingTransformerSpec}) on ONNX Runtime's CUDA provider, per graph form and CUDA setting, in one JVM,
 * round-robin so that all forms see the same machine. The forms ({@code --forms}):
 *
 * <ul>
 *   <li>{@code seed}: the graph as the seed export has it (fp16 activations, fp32 attention scores);
 *   <li>{@code mha32}: attention fused as {@code MultiHeadAttention} in fp32 ({@link MhaFusion} with
 *       {@link MhaPrecision#FP32}: {@code --attention fused});
 *   <li>{@code mha16}: the same node in fp16, q, k, v cast to fp16 before it and its output back after it
 *       ({@link MhaPrecision#FP16}: {@code --attention fused_fp16}, what {@code attention=auto} derives for CUDA);
 *   <li>{@code mha16rope}: {@code mha16} with the RoPE subgraphs as one {@code RotaryEmbedding} node each
 *       ({@link RopeFusion}: what {@code attention=auto} derives for CUDA since the RoPE fusion became a pass);
 *   <li>{@code file:NAME=PATH}: any other graph of the same I/O (a product's tuned graph, say);
 * </ul>
 *
 * each optionally suffixed {@code -notf32} (the CUDA provider option {@code use_tf32=0}; ONNX Runtime's default is
 * on) or {@code -heuristic} ({@code cudnn_conv_algo_search=HEURISTIC}). Per form it prints the session creation
 * time, the first run (warm-up: kernel selection, arena growth), the median and minimum of the timed runs, and the
 * prediction's relative RMS difference from the {@code seed} form's and, with {@code --cpu-reference}, from the seed
 * graph run on the CPU provider at the first size. With {@code --profile} each session is profiled and ONNX
 * Runtime's time per operator type of the last run is printed (run with {@code CUDA_LAUNCH_BLOCKING=1} so that the
 * host-side node times are the kernels' times).
 *
 * <pre>java -Xmx16g -Donnxruntime.native.path=DIR -cp flux2.jar:flux2-bench.jar:flux2-testkit.jar \
 *     dev.flux2.bench.cuda.CudaStepComparison [--size 512,1024] [--forms seed,mha16,...] [--rounds 10] \
 *     [--blocks 5+20] [--dir DIR] [--cpu-reference] [--profile] [--device 0]</pre>
 *
 * <p>Times are wall-clock around {@code OrtSession.run} with the inputs in host memory, as the pipeline feeds them
 * (the context's 7.5 MiB copy to the device included).
 */
public final class CudaStepComparison {
    private static final int TEXT = 512;

    private CudaStepComparison() {}

    /**
     * @param args options, see the class comment
     * @throws Exception when writing, opening or running fails
     */
    public static void main(String[] args) throws Exception {
        String sizes = "512,1024";
        String forms = "seed,seed-notf32,mha32,mha16,mha16-notf32";
        String blocks = "5+20";
        int rounds = 10;
        int device = 0;
        boolean cpuReference = false;
        boolean profile = false;
        Path dir = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--size" -> sizes = args[++i];
                case "--forms" -> forms = args[++i];
                case "--blocks" -> blocks = args[++i];
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--device" -> device = Integer.parseInt(args[++i]);
                case "--dir" -> dir = Path.of(args[++i]);
                case "--cpu-reference" -> cpuReference = true;
                case "--profile" -> profile = true;
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        String[] db = blocks.split("\\+");
        TimingTransformerSpec spec = TimingTransformerSpec.builder()
                .blocks(Integer.parseInt(db[0]), Integer.parseInt(db[1]))
                .build();
        Path work = Files.createDirectories(dir != null ? dir : Files.createTempDirectory("flux2-cuda-step"));
        long t0 = System.nanoTime();
        Path found = existing(work);
        Path seed = found != null
                ? found
                : TimingTransformerWriter.write(spec, work).graphFile();
        System.out.printf(
                Locale.ROOT, "timing transformer %s in %s (%.1f s)%n", spec, seed, (System.nanoTime() - t0) / 1e9);

        Map<String, Path> graphs = new LinkedHashMap<>();
        List<Form> chosen = new ArrayList<>();
        for (String f : forms.split(",")) {
            chosen.add(Form.parse(f.trim()));
        }
        for (Form f : chosen) {
            graphs.computeIfAbsent(
                    f.graph.equals("file") ? f.label : f.graph, g -> graphFor(f.graph, f.file, seed, work));
        }
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        List<Step> steps = new ArrayList<>();
        try {
            for (Form f : chosen) {
                long c = System.nanoTime();
                Step s = new Step(
                        f,
                        env,
                        graphs.get(f.graph.equals("file") ? f.label : f.graph),
                        device,
                        profile ? work.resolve("profile-" + f.label) : null);
                s.createMs = (System.nanoTime() - c) / 1e6;
                steps.add(s);
                System.out.printf(Locale.ROOT, "%-22s session created in %.0f ms%n", f.label, s.createMs);
            }
            float[] cpu = null;
            String[] sz = sizes.split(",");
            if (cpuReference) {
                int size = Integer.parseInt(sz[0].trim());
                try (Step ref = new Step(Form.parse("seed"), env, seed, -1, null);
                        Inputs in = new Inputs(env, size, spec.contextDim())) {
                    long c = System.nanoTime();
                    cpu = ref.run(in.map);
                    System.out.printf(
                            Locale.ROOT,
                            "cpu reference %dx%d: seed graph on the CPU provider in %.1f s%n",
                            size,
                            size,
                            (System.nanoTime() - c) / 1e9);
                }
            }
            for (int k = 0; k < sz.length; k++) {
                int size = Integer.parseInt(sz[k].trim());
                measure(env, steps, size, spec.contextDim(), rounds, k == 0 ? cpu : null);
            }
            if (profile) {
                for (Step s : steps) {
                    System.out.println(s.form.label + " profile (last run, per operator type):");
                    OrtProfileSummary.print(s.session.endProfiling(), 14);
                }
            }
        } finally {
            for (Step s : steps) {
                s.close();
            }
        }
    }

    private static void measure(OrtEnvironment env, List<Step> steps, int size, int contextDim, int rounds, float[] cpu)
            throws OrtException {
        try (Inputs in = new Inputs(env, size, contextDim)) {
            float[] reference = null;
            for (Step s : steps) {
                long w = System.nanoTime();
                float[] y = s.run(in.map);
                s.firstMs = (System.nanoTime() - w) / 1e6;
                if (reference == null) {
                    reference = y;
                }
                s.vsFirst = relativeRms(reference, y);
                s.vsCpu = cpu == null ? Double.NaN : relativeRms(cpu, y);
                s.nonFinite = nonFinite(y);
                s.times.clear();
                s.run(in.map);
            }
            for (int r = 0; r < rounds; r++) {
                for (int i = 0; i < steps.size(); i++) {
                    Step s = steps.get(r % 2 == 0 ? i : steps.size() - 1 - i);
                    long w = System.nanoTime();
                    s.time(in.map);
                    s.times.add((System.nanoTime() - w) / 1e6);
                }
            }
            System.out.printf(
                    Locale.ROOT,
                    "%-6s %-22s %9s %9s %9s %9s %12s %12s %6s%n",
                    "size",
                    "form",
                    "create_ms",
                    "first_ms",
                    "median_ms",
                    "min_ms",
                    "rms_vs_" + steps.get(0).form.label,
                    "rms_vs_cpu",
                    "nonfin");
            for (Step s : steps) {
                double[] t = s.times.stream()
                        .mapToDouble(Double::doubleValue)
                        .sorted()
                        .toArray();
                System.out.printf(
                        Locale.ROOT,
                        "RESULT %4d %-22s %9.0f %9.0f %9.1f %9.1f %12.3g %12.3g %6d%n",
                        size,
                        s.form.label,
                        s.createMs,
                        s.firstMs,
                        median(t),
                        t[0],
                        s.vsFirst,
                        s.vsCpu,
                        s.nonFinite);
            }
        }
    }

    /** @return the timing transformer graph a previous run left in the folder, or null */
    private static Path existing(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(".onnx")
                            && !p.getFileName().toString().startsWith("form-"))
                    .findFirst()
                    .orElse(null);
        }
    }

    private static Path graphFor(String graph, Path file, Path seed, Path dir) {
        try {
            switch (graph) {
                case "seed":
                    return seed;
                case "file":
                    return file;
                default:
                    break;
            }
            Path target = dir.resolve("form-" + graph + ".onnx");
            if (Files.exists(target)) {
                return target;
            }
            MhaFusion.Fused fusion =
                    MhaFusion.fuse(read(seed), graph.startsWith("mha16") ? MhaPrecision.FP16 : MhaPrecision.FP32);
            ModelProto out = fusion.model();
            String note = fusion.result().describe();
            if (graph.endsWith("rope")) {
                PassOutcome r = RopeFusion.fuse(out);
                out = r.model();
                note += "; " + r.summary();
            }
            try (OutputStream o = Files.newOutputStream(target)) {
                out.writeTo(o);
            }
            System.out.println("form " + graph + ": " + note);
            return target;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static ModelProto read(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            CodedInputStream coded = CodedInputStream.newInstance(in);
            coded.setSizeLimit(Integer.MAX_VALUE);
            return ModelProto.parseFrom(coded);
        }
    }

    static double relativeRms(float[] a, float[] b) {
        double num = 0;
        double den = 0;
        for (int i = 0; i < a.length; i++) {
            num += (a[i] - b[i]) * (double) (a[i] - b[i]);
            den += a[i] * (double) a[i];
        }
        return Math.sqrt(num / den);
    }

    private static int nonFinite(float[] y) {
        int n = 0;
        for (float v : y) {
            if (!Float.isFinite(v)) {
                n++;
            }
        }
        return n;
    }

    static double median(double[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /** One form: which graph, which CUDA settings. */
    private record Form(String label, String graph, Path file, boolean tf32, boolean heuristic) {
        static Form parse(String label) {
            String g = label;
            if (g.startsWith("file:")) {
                String[] nv = g.substring(5).split("=", 2);
                return new Form(nv[0], "file", Path.of(nv[1]), true, false);
            }
            boolean tf32 = true;
            boolean heuristic = false;
            if (g.endsWith("-heuristic")) {
                heuristic = true;
                g = g.substring(0, g.length() - "-heuristic".length());
            }
            if (g.endsWith("-notf32")) {
                tf32 = false;
                g = g.substring(0, g.length() - "-notf32".length());
            }
            if (!List.of("seed", "mha32", "mha16", "mha16rope").contains(g)) {
                throw new IllegalArgumentException("unknown form " + label);
            }
            return new Form(label, g, null, tf32, heuristic);
        }
    }

    /** The step's inputs at one size, in host memory. */
    private static final class Inputs implements AutoCloseable {
        final Map<String, OnnxTensor> map = new HashMap<>();

        Inputs(OrtEnvironment env, int size, int contextDim) throws OrtException {
            int side = size / 16;
            int tokens = side * side;
            SplittableRandom rnd = new SplittableRandom(3);
            float[] xIds = new float[tokens * 4];
            for (int t = 0; t < tokens; t++) {
                xIds[t * 4 + 1] = t / side;
                xIds[t * 4 + 2] = t % side;
            }
            float[] ctxIds = new float[TEXT * 4];
            for (int t = 0; t < TEXT; t++) {
                ctxIds[t * 4 + 3] = t;
            }
            map.put("x", half(env, rnd, tokens * 128, 1, tokens, 128));
            map.put("ctx", half(env, rnd, TEXT * contextDim, 1, TEXT, contextDim));
            map.put("timesteps", half(env, rnd, 1, 1));
            map.put("x_ids", OnnxTensor.createTensor(env, FloatBuffer.wrap(xIds), new long[] {1, tokens, 4}));
            map.put("ctx_ids", OnnxTensor.createTensor(env, FloatBuffer.wrap(ctxIds), new long[] {1, TEXT, 4}));
        }

        private static OnnxTensor half(OrtEnvironment env, SplittableRandom rnd, int n, long... shape)
                throws OrtException {
            ByteBuffer b = ByteBuffer.allocateDirect(n * 2).order(ByteOrder.nativeOrder());
            for (int i = 0; i < n; i++) {
                b.putShort(Fp16Conversions.floatToFp16((float) rnd.nextDouble()));
            }
            b.rewind();
            return OnnxTensor.createTensor(env, b, shape, OnnxJavaType.FLOAT16);
        }

        @Override
        public void close() {
            map.values().forEach(OnnxTensor::close);
        }
    }

    /** One session over one form. */
    private static final class Step implements AutoCloseable {
        final Form form;
        final OrtSession.SessionOptions options;
        final OrtSession session;
        final List<Double> times = new ArrayList<>();
        double createMs;
        double firstMs;
        double vsFirst;
        double vsCpu;
        int nonFinite;

        /** @param device the CUDA device, or -1 for the CPU provider */
        Step(Form form, OrtEnvironment env, Path graph, int device, Path profilePrefix) throws OrtException {
            this.form = form;
            options = new OrtSession.SessionOptions();
            if (device >= 0) {
                OrtCUDAProviderOptions cuda = new OrtCUDAProviderOptions(device);
                cuda.add("use_tf32", form.tf32 ? "1" : "0");
                if (form.heuristic) {
                    cuda.add("cudnn_conv_algo_search", "HEURISTIC");
                }
                options.addCUDA(cuda);
            }
            if (profilePrefix != null) {
                options.enableProfiling(profilePrefix.toString());
            }
            session = env.createSession(graph.toString(), options);
        }

        float[] run(Map<String, OnnxTensor> inputs) throws OrtException {
            try (OrtSession.Result r = session.run(inputs)) {
                ByteBuffer out = ((OnnxTensor) r.get(0)).getByteBuffer().order(ByteOrder.nativeOrder());
                float[] y = new float[out.remaining() / 2];
                for (int i = 0; i < y.length; i++) {
                    y[i] = Fp16Conversions.fp16ToFloat(out.getShort());
                }
                return y;
            }
        }

        void time(Map<String, OnnxTensor> inputs) throws OrtException {
            try (OrtSession.Result r = session.run(inputs)) {
                r.get(0);
            }
        }

        @Override
        public void close() throws OrtException {
            session.close();
            options.close();
        }
    }
}
