package dev.flux2.onnx.runtime;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import java.nio.FloatBuffer;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Runs a one-node graph ({@code y = x + x} on 4 floats) on session options with the CUDA provider, before a model is
 * loaded: the first place where a missing GPU, a driver too old for CUDA 12 or a bad {@code device_id} shows, which it
 * turns into a sentence a user can act on (ONNX Runtime's own message is kept after it). Stateless.
 */
public final class CudaProbe {
    private CudaProbe() {}

    /**
     * @param env the environment (on a library with the CUDA provider)
     * @param options session options with the CUDA provider enabled; not closed here
     * @param deviceId the device the options name, for messages
     * @return empty when the device computed the right result, else why not
     */
    public static Optional<String> run(OrtEnvironment env, OrtSession.SessionOptions options, int deviceId) {
        try (OrtSession session = env.createSession(RuntimeReport.addGraph(), options);
                OnnxTensor x =
                        OnnxTensor.createTensor(env, FloatBuffer.wrap(new float[] {1, 2, 3, 4}), new long[] {4});
                OrtSession.Result r = session.run(Map.of("x", x))) {
            float[] y = (float[]) r.get(0).getValue();
            boolean ok = y.length == 4 && y[0] == 2 && y[1] == 4 && y[2] == 6 && y[3] == 8;
            return ok
                    ? Optional.empty()
                    : Optional.of("CUDA device " + deviceId + " computed a wrong result for y = x + x: "
                            + java.util.Arrays.toString(y));
        } catch (OrtException e) {
            return Optional.of(explain(String.valueOf(e.getMessage()), deviceId));
        }
    }

    /**
     * @param ortMessage ONNX Runtime's message for a failed CUDA session
     * @param deviceId the device asked for
     * @return what it means and what to do, followed by ONNX Runtime's first line
     */
    static String explain(String ortMessage, int deviceId) {
        String m = ortMessage.toLowerCase(Locale.ROOT);
        String first = ortMessage.strip().lines().findFirst().orElse("");
        String meaning;
        if (m.contains("no cuda-capable device")) {
            meaning = "the NVIDIA driver sees no GPU (no CUDA-capable device): on a machine without an NVIDIA GPU use"
                    + " another provider; in a container, start it with the GPU passed through";
        } else if (m.contains("driver version is insufficient")) {
            meaning = "the NVIDIA driver is older than CUDA 12 needs: update it (release 525 or newer)";
        } else if (m.contains("invalid device ordinal")) {
            meaning = "device_id " + deviceId + " names no GPU (the first is 0; `nvidia-smi -L` lists them)";
        } else if (m.contains("out of memory")) {
            meaning = "device " + deviceId + " is out of memory (other processes hold it? `nvidia-smi` shows them)";
        } else if (m.contains("failed to load") || m.contains("cannot open shared object")) {
            meaning = "ONNX Runtime could not load its CUDA provider or a library it needs";
        } else {
            meaning = "the CUDA provider failed on device " + deviceId;
        }
        return meaning + " (ONNX Runtime: " + first + ")";
    }
}
