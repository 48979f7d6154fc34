package dev.flux2.onnx.lora;

import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.TensorInfo;
import dev.flux2.onnx.bundle.GraphSignature;
import dev.flux2.onnx.derived.DerivedGraph;
import dev.flux2.onnx.derived.DerivedGraphStore;
import dev.flux2.onnx.passes.LoraBranches;
import java.io.IOException;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The tiny klein transformer of src/test/resources/lora/tiny (make_tiny_reference.py): its files copied to a
 * folder, the LoRA graph derived through the store, sessions on both, and the inputs and diffusers' predictions.
 */
final class TinyKleinGraph implements AutoCloseable {
    static final Path FIXTURES = Path.of("src/test/resources/lora/tiny");
    static final OrtEnvironment ENV = OrtEnvironment.getEnvironment();

    final Path source;
    final DerivedGraph derived;
    final OrtSession base;
    final OrtSession lora;
    final SafetensorsFile reference;

    /**
     * @param folder a fresh folder
     * @param graph {@code transformer.onnx} (separate q/k/v, external data) or {@code transformer_fused_qkv.onnx}
     */
    TinyKleinGraph(Path folder, String graph) throws IOException, OrtException {
        Path bundle = Files.createDirectories(folder.resolve("bundle"));
        Files.copy(FIXTURES.resolve(graph), bundle.resolve(graph));
        Map<String, Long> data = new HashMap<>();
        if (graph.equals("transformer.onnx")) {
            Files.copy(FIXTURES.resolve("transformer.onnx.data"), bundle.resolve("transformer.onnx.data"));
            data.put("transformer.onnx.data", Files.size(bundle.resolve("transformer.onnx.data")));
        }
        source = bundle.resolve(graph);
        derived = new DerivedGraphStore(folder.resolve("cache"), true)
                .derive(
                        "transformer",
                        new GraphSignature(source, List.of(), List.of(), data),
                        List.of(LoraBranches.pass()))
                .orElseThrow();
        OrtSession.SessionOptions o = new OrtSession.SessionOptions();
        o.setIntraOpNumThreads(1);
        base = ENV.createSession(source.toString(), o);
        // As the backend's SessionFactory opens a derived graph: from its bytes, external data from the bundle.
        OrtSession.SessionOptions d = new OrtSession.SessionOptions();
        d.setIntraOpNumThreads(1);
        d.addConfigEntry(
                "session.model_external_initializers_file_folder_path",
                derived.dataFolder().toString());
        lora = ENV.createSession(Files.readAllBytes(derived.graphFile()), d);
        reference = SafetensorsFile.open(FIXTURES.resolve("reference.safetensors"), 1 << 20);
    }

    float[] ref(String name) {
        return reference.floats(reference.entries().get(name));
    }

    private Map<String, OnnxTensor> inputs() throws OrtException {
        Map<String, OnnxTensor> in = new LinkedHashMap<>();
        for (String name : List.of("hidden_states", "encoder_hidden_states", "timestep")) {
            SafetensorsFile.Entry e = reference.entries().get(name);
            in.put(name, OnnxTensor.createTensor(ENV, FloatBuffer.wrap(ref(name)), e.shape()));
        }
        for (String name : List.of("img_ids", "txt_ids")) {
            SafetensorsFile.Entry e = reference.entries().get(name);
            float[] v = ref(name);
            long[] ids = new long[v.length];
            for (int i = 0; i < v.length; i++) {
                ids[i] = (long) v[i];
            }
            in.put(name, OnnxTensor.createTensor(ENV, LongBuffer.wrap(ids), e.shape()));
        }
        return in;
    }

    /** One prediction of the base graph. */
    float[] predictBase() throws OrtException {
        Map<String, OnnxTensor> in = inputs();
        try (OrtSession.Result r = base.run(in)) {
            return ((OnnxTensor) r.get(0)).getFloatBuffer().array().clone();
        } finally {
            in.values().forEach(OnnxTensor::close);
        }
    }

    /** One prediction of the LoRA graph with these adapters. */
    float[] predict(List<LoraFactors.Adapter> adapters) throws OrtException {
        Map<String, OnnxTensor> in = inputs();
        try {
            for (LoraFactors.Feed f : LoraFactors.feeds(loraInputs(), adapters)) {
                in.put(f.name(), OnnxTensor.createTensor(ENV, FloatBuffer.wrap(f.values()), f.shape()));
            }
            try (OrtSession.Result r = lora.run(in)) {
                float[] out = new float[(int) ((OnnxTensor) r.get(0)).getInfo().getNumElements()];
                ((OnnxTensor) r.get(0)).getFloatBuffer().get(out);
                return out;
            }
        } finally {
            in.values().forEach(OnnxTensor::close);
        }
    }

    Map<String, long[]> loraInputs() throws OrtException {
        Map<String, long[]> shapes = new HashMap<>();
        for (Map.Entry<String, NodeInfo> e : lora.getInputInfo().entrySet()) {
            shapes.put(e.getKey(), ((TensorInfo) e.getValue().getInfo()).getShape());
        }
        return shapes;
    }

    @Override
    public void close() throws OrtException {
        base.close();
        lora.close();
    }
}
