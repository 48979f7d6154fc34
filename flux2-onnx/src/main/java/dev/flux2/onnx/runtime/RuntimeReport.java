package dev.flux2.onnx.runtime;

import ai.onnx.proto.OnnxMl.GraphProto;
import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnx.proto.OnnxMl.NodeProto;
import ai.onnx.proto.OnnxMl.OperatorSetIdProto;
import ai.onnx.proto.OnnxMl.TensorProto;
import ai.onnx.proto.OnnxMl.TensorShapeProto;
import ai.onnx.proto.OnnxMl.TypeProto;
import ai.onnx.proto.OnnxMl.ValueInfoProto;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtProvider;
import ai.onnxruntime.OrtSession;
import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What {@code flux2 info --provider webgpu|cuda} shows about the ONNX Runtime library and the device: which
 * library runs (file, version, why it was chosen), which providers it was built with, and whether a WebGPU device can
 * be created and computes (a one-node graph, {@code y = x + x} on 4 floats, run on WebGPU and checked). ONNX Runtime
 * 1.26's Java API exposes no adapter description for WebGPU (no EP device is listed for it), so vendor, architecture,
 * fp16 support and limits are reported as not exposed rather than guessed. Stateless.
 */
public final class RuntimeReport {
    private RuntimeReport() {}

    /**
     * @param ortLibrary the {@code --ort-library} value, if given
     * @param webGpu whether to load the WebGPU runtime and probe the device
     * @param home the flux2 home folder
     * @return ordered facts, keys in snake_case
     * @throws RuntimeLibraryException when the chosen library cannot be loaded
     */
    public static Map<String, String> of(Optional<String> ortLibrary, boolean webGpu, Path home) {
        return of(ortLibrary, webGpu ? Set.of(OrtProvider.WEBGPU) : Set.of(), home);
    }

    /**
     * @param ortLibrary the {@code --ort-library} value, if given
     * @param providers the providers asked about: WEBGPU loads its runtime and probes the device; CUDA loads its
     *     runtime (or the class path's GPU natives), checks its libraries, lists the GPUs with {@code nvidia-smi}
     *     ({@link CudaDevices}) and runs a one-node graph on device 0
     * @param home the flux2 home folder
     * @return ordered facts, keys in snake_case
     * @throws RuntimeLibraryException when the chosen library cannot be loaded
     */
    public static Map<String, String> of(Optional<String> ortLibrary, Set<OrtProvider> providers, Path home) {
        Map<String, String> facts = new LinkedHashMap<>();
        boolean webGpu = providers.contains(OrtProvider.WEBGPU);
        boolean cuda = providers.contains(OrtProvider.CUDA);
        OrtNativeLibrary.Choice choice = OrtNativeLibrary.choose(ortLibrary, providers, home);
        if (webGpu || cuda) {
            OrtNativeLibrary.keepEnvironmentAtExit(choice);
        }
        OrtEnvironment env = OrtNativeLibrary.environment(choice);
        facts.put("ort_library", OrtNativeLibrary.describeLoaded());
        facts.put("ort_library_chosen_by", choice.reason());
        facts.put("ort_version", env.getVersion());
        facts.put("ort_providers", OrtEnvironment.getAvailableProviders().toString());
        if (webGpu) {
            facts.put("webgpu_device", probeWebGpu(env));
            facts.put(
                    "webgpu_adapter",
                    "not exposed by ONNX Runtime " + env.getVersion() + "'s Java API (vendor, architecture, fp16"
                            + " and limits are not reported for WebGPU)");
        }
        if (cuda) {
            facts.putAll(cuda(env));
        }
        return facts;
    }

    private static Map<String, String> cuda(OrtEnvironment env) {
        Map<String, String> facts = new LinkedHashMap<>();
        CudaDevices.Query devices = CudaDevices.query();
        facts.put(
                "cuda_devices",
                devices.gpus().isEmpty()
                        ? "none reported: " + devices.problem().orElse("")
                        : String.join(
                                "; ",
                                devices.gpus().stream()
                                        .map(g -> g.index() + ": " + g.describe())
                                        .toList()));
        boolean libraries;
        if (OrtNativeLibrary.loadedByName()) {
            facts.put(
                    "cuda_libraries",
                    "not checked (a library named by ort_library or " + OrtNativeLibrary.LIBRARY_ENV
                            + " may link other CUDA versions)");
            libraries = true;
        } else if (CudaLibraries.checkOff()) {
            facts.put(
                    "cuda_libraries",
                    "not checked (" + CudaLibraries.CHECK_ENV + "=off): " + CudaLibraries.describeFound());
            libraries = true;
        } else {
            try {
                CudaLibraries.check();
                facts.put("cuda_libraries", "all found (" + CudaLibraries.describeFound() + ")");
                libraries = true;
            } catch (CudaUnavailableException e) {
                facts.put("cuda_libraries", e.getMessage());
                libraries = false;
            }
        }
        if (!OrtEnvironment.getAvailableProviders().contains(OrtProvider.CUDA)) {
            facts.put("cuda_device", "unavailable: the loaded ONNX Runtime library has no CUDA provider");
        } else if (!libraries) {
            facts.put("cuda_device", "not tried: a library the CUDA provider links is missing (cuda_libraries)");
        } else {
            long start = System.nanoTime();
            try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
                options.addCUDA(0);
                Optional<String> problem = CudaProbe.run(env, options, 0);
                facts.put(
                        "cuda_device",
                        problem.map(p -> "unavailable: " + p)
                                .orElse("ok (device 0 ran y = x + x in " + (System.nanoTime() - start) / 1_000_000
                                        + " ms, CUDA context creation included)"));
            } catch (OrtException e) {
                facts.put("cuda_device", "unavailable: " + CudaProbe.explain(String.valueOf(e.getMessage()), 0));
            }
        }
        return facts;
    }

    /**
     * Creates a WebGPU session on a one-node graph, runs it and checks the result.
     *
     * @param env the environment (on a library with the WebGPU provider)
     * @return {@code "ok (…)"} when the device computed the right result, else {@code "unavailable: <why>"} or
     *     {@code "WRONG RESULT …"}
     */
    public static String probeWebGpu(OrtEnvironment env) {
        if (!OrtEnvironment.getAvailableProviders().contains(OrtProvider.WEBGPU)) {
            return "unavailable: the loaded ONNX Runtime library has no WebGPU provider";
        }
        try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
            options.addWebGPU(Map.of());
            long start = System.nanoTime();
            try (OrtSession session = env.createSession(addGraph(), options);
                    OnnxTensor x =
                            OnnxTensor.createTensor(env, FloatBuffer.wrap(new float[] {1, 2, 3, 4}), new long[] {4});
                    OrtSession.Result r = session.run(Map.of("x", x))) {
                float[] y = (float[]) r.get(0).getValue();
                boolean ok = y.length == 4 && y[0] == 2 && y[1] == 4 && y[2] == 6 && y[3] == 8;
                return (ok ? "ok" : "WRONG RESULT " + java.util.Arrays.toString(y))
                        + " (a WebGPU device was created and ran y = x + x in "
                        + (System.nanoTime() - start) / 1_000_000 + " ms)";
            }
        } catch (OrtException e) {
            return "unavailable: "
                    + e.getMessage().replaceAll("\\s*\\R\\s*", " | ").trim();
        }
    }

    /** @return the one-node probe graph {@code y = x + x} on 4 floats */
    static byte[] addGraph() {
        TypeProto floats = TypeProto.newBuilder()
                .setTensorType(TypeProto.Tensor.newBuilder()
                        .setElemType(TensorProto.DataType.FLOAT_VALUE)
                        .setShape(TensorShapeProto.newBuilder()
                                .addDim(TensorShapeProto.Dimension.newBuilder().setDimValue(4))))
                .build();
        GraphProto graph = GraphProto.newBuilder()
                .setName("webgpu-probe")
                .addNode(NodeProto.newBuilder()
                        .setOpType("Add")
                        .addInput("x")
                        .addInput("x")
                        .addOutput("y"))
                .addInput(ValueInfoProto.newBuilder().setName("x").setType(floats))
                .addOutput(ValueInfoProto.newBuilder().setName("y").setType(floats))
                .build();
        return ModelProto.newBuilder()
                .setIrVersion(8)
                .addOpsetImport(OperatorSetIdProto.newBuilder().setDomain("").setVersion(17))
                .setProducerName("flux2-java")
                .setGraph(graph)
                .build()
                .toByteArray();
    }
}
