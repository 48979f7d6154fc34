package dev.flux2.onnx.lora;

import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.OnnxJavaType;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.TensorInfo;
import ai.onnxruntime.platform.Fp16Conversions;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flux2.onnx.passes.LoraBranches;
import dev.flux2.onnx.passes.PassContext;
import dev.flux2.onnx.passes.lora.AdaptedLinear;
import dev.flux2.onnx.passes.lora.LoraSlot;
import dev.flux2.testkit.timing.TimingTransformerFiles;
import dev.flux2.testkit.timing.TimingTransformerSpec;
import dev.flux2.testkit.timing.TimingTransformerWriter;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the LoRA branch costs on the CPU (opt-in: {@code -Dflux2.measure=lora}; prints, asserts nothing): the testkit's
 * seed-layout timing transformer at klein width (24 heads, hidden 3072, context 7680; 1 double + 1 single block, so
 * the share per layer is klein's), one step at 256 image and 64 text tokens: the base graph, the LoRA graph with
 * rank-1 zeros, rank 16 and rank 64 on every linear; the time to switch adapters (new feeds) and to read a new
 * adapter file.
 */
@EnabledIfSystemProperty(named = "flux2.measure", matches = "lora")
class LoraCostMeasurement {
    static final int TOKENS = 256;
    static final int TEXT = 64;
    static final OrtEnvironment ENV = OrtEnvironment.getEnvironment();

    @TempDir
    Path dir;

    @Test
    void measure() throws Exception {
        TimingTransformerSpec spec =
                TimingTransformerSpec.builder().heads(24).blocks(1, 1).build();
        TimingTransformerFiles files = TimingTransformerWriter.write(spec, dir);
        ModelProto m;
        try (InputStream in = Files.newInputStream(files.graphFile())) {
            m = ModelProto.parseFrom(com.google.protobuf.CodedInputStream.newInstance(in));
        }
        ModelProto derived =
                LoraBranches.pass().apply(m, new PassContext(dir, null0())).model();
        Path lora = files.graphFile().resolveSibling("lora.onnx");
        try (OutputStream out = Files.newOutputStream(lora)) {
            derived.writeTo(out);
        }
        OrtSession.SessionOptions o = new OrtSession.SessionOptions();
        try (OrtSession base = ENV.createSession(files.graphFile().toString(), o);
                OrtSession branch = ENV.createSession(lora.toString(), o)) {
            Map<String, OnnxTensor> in = inputs(spec);
            double tBase = time(base, in);
            Map<String, long[]> shapes = shapes(branch);
            System.out.printf("base step %.1f ms%n", tBase);
            for (int rank : new int[] {0, 16, 64}) {
                Path file = writeLora(shapes, rank);
                long r0 = System.nanoTime();
                LoraAdapterFile adapter = rank == 0 ? null : LoraFiles.read(file);
                long r1 = System.nanoTime();
                List<LoraFactors.Adapter> adapters =
                        adapter == null ? List.of() : List.of(new LoraFactors.Adapter(adapter, 0.8));
                long f0 = System.nanoTime();
                Map<String, OnnxTensor> feeds = new HashMap<>(in);
                for (LoraFactors.Feed f : LoraFactors.feeds(shapes, adapters)) {
                    feeds.put(f.name(), half(f.values(), f.shape()));
                }
                long f1 = System.nanoTime();
                double t = time(branch, feeds);
                System.out.printf(
                        "rank %d: step %.1f ms (+%.1f%% over base); switch (feeds) %.1f ms; read file %.1f ms"
                                + " (%d MB)%n",
                        rank,
                        t,
                        100 * (t - tBase) / tBase,
                        (f1 - f0) / 1e6,
                        (r1 - r0) / 1e6,
                        rank == 0 ? 0 : Files.size(file) >> 20);
            }
        }
    }

    static PassContext.DataSink null0() {
        return new PassContext.DataSink() {
            @Override
            public String location() {
                return "unused";
            }

            @Override
            public long append(byte[] bytes) {
                throw new UnsupportedOperationException();
            }

            @Override
            public long size() {
                return 0;
            }
        };
    }

    /** A diffusers-named LoRA on every linear of the graph, rank r, F32, written as safetensors' format says. */
    Path writeLora(Map<String, long[]> shapes, int rank) throws Exception {
        Path file = dir.resolve("r" + rank + ".safetensors");
        if (rank == 0) {
            return file;
        }
        SplittableRandom rnd = new SplittableRandom(rank);
        Map<String, Object> header = new LinkedHashMap<>();
        List<float[]> data = new ArrayList<>();
        long offset = 0;
        for (Map.Entry<String, long[]> e : shapes.entrySet()) {
            LoraSlot s = LoraSlot.parse(e.getKey());
            if (s == null) {
                continue;
            }
            int in = (int) e.getValue()[0];
            for (AdaptedLinear.Part p : s.parts()) {
                int out = p.to() - p.from();
                for (String[] kind : new String[][] {{"lora_A", "" + rank, "" + in}, {"lora_B", "" + out, "" + rank}}) {
                    int rows = Integer.parseInt(kind[1]);
                    int cols = Integer.parseInt(kind[2]);
                    float[] v = new float[rows * cols];
                    for (int i = 0; i < v.length; i++) {
                        v[i] = (float) (rnd.nextGaussian() * 0.01);
                    }
                    header.put(
                            "transformer." + p.target() + "." + kind[0] + ".weight",
                            Map.of(
                                    "dtype",
                                    "F32",
                                    "shape",
                                    List.of(rows, cols),
                                    "data_offsets",
                                    List.of(offset, offset + 4L * v.length)));
                    offset += 4L * v.length;
                    data.add(v);
                }
            }
        }
        byte[] json = new ObjectMapper().writeValueAsBytes(header);
        try (OutputStream out = new java.io.BufferedOutputStream(Files.newOutputStream(file))) {
            out.write(ByteBuffer.allocate(8)
                    .order(ByteOrder.LITTLE_ENDIAN)
                    .putLong(json.length)
                    .array());
            out.write(json);
            for (float[] v : data) {
                ByteBuffer b = ByteBuffer.allocate(4 * v.length).order(ByteOrder.LITTLE_ENDIAN);
                b.asFloatBuffer().put(v);
                out.write(b.array());
            }
        }
        return file;
    }

    static Map<String, long[]> shapes(OrtSession s) throws Exception {
        Map<String, long[]> shapes = new LinkedHashMap<>();
        for (Map.Entry<String, NodeInfo> e : s.getInputInfo().entrySet()) {
            shapes.put(e.getKey(), ((TensorInfo) e.getValue().getInfo()).getShape());
        }
        return shapes;
    }

    static Map<String, OnnxTensor> inputs(TimingTransformerSpec spec) throws Exception {
        SplittableRandom rnd = new SplittableRandom(5);
        float[] xIds = new float[TOKENS * 4];
        for (int t = 0; t < TOKENS; t++) {
            xIds[t * 4 + 1] = t / 16;
            xIds[t * 4 + 2] = t % 16;
        }
        float[] ctxIds = new float[TEXT * 4];
        for (int t = 0; t < TEXT; t++) {
            ctxIds[t * 4 + 3] = t;
        }
        Map<String, OnnxTensor> in = new HashMap<>();
        in.put("x", half(random(rnd, TOKENS * 128), new long[] {1, TOKENS, 128}));
        in.put("x_ids", OnnxTensor.createTensor(ENV, FloatBuffer.wrap(xIds), new long[] {1, TOKENS, 4}));
        in.put("timesteps", half(new float[] {0.6f}, new long[] {1}));
        in.put("ctx", half(random(rnd, TEXT * spec.contextDim()), new long[] {1, TEXT, spec.contextDim()}));
        in.put("ctx_ids", OnnxTensor.createTensor(ENV, FloatBuffer.wrap(ctxIds), new long[] {1, TEXT, 4}));
        return in;
    }

    static double time(OrtSession s, Map<String, OnnxTensor> in) throws Exception {
        s.run(in).close();
        double[] t = new double[3];
        for (int i = 0; i < t.length; i++) {
            long a = System.nanoTime();
            s.run(in).close();
            t[i] = (System.nanoTime() - a) / 1e6;
        }
        Arrays.sort(t);
        return t[t.length / 2];
    }

    static float[] random(SplittableRandom rnd, int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) (2 * rnd.nextDouble() - 1);
        }
        return v;
    }

    static OnnxTensor half(float[] values, long[] shape) throws Exception {
        ByteBuffer buf = ByteBuffer.allocateDirect(values.length * 2).order(ByteOrder.nativeOrder());
        for (float v : values) {
            buf.putShort(Fp16Conversions.floatToFp16(v));
        }
        buf.flip();
        return OnnxTensor.createTensor(ENV, buf.asShortBuffer(), shape, OnnxJavaType.FLOAT16);
    }
}
