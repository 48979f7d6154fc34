package dev.flux2.onnx.stage;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import dev.flux2.onnx.bundle.BundleConfig;
import dev.flux2.onnx.bundle.BundleIo;
import dev.flux2.onnx.bundle.ElementType;
import dev.flux2.onnx.session.SessionCache;
import dev.flux2.onnx.tensor.DirectBufferPool;
import dev.flux2.onnx.tensor.TensorBuffer;
import java.util.Objects;

/**
 * What every stage needs: the environment, the session cache, the config, the checked graph I/O, the session
 * spec builder and the pool the stages' tensor buffers come from. Owned by the backend, which closes the cache.
 *
 * @param env the shared ONNX Runtime environment
 * @param sessions the session cache (memory policy)
 * @param config the bundle config
 * @param io the checked graph I/O
 * @param specs builds session specs from fed shapes
 * @param buffers reuses the direct buffers of every tensor the stages allocate, across generations
 */
public record StageResources(
        OrtEnvironment env,
        SessionCache sessions,
        BundleConfig config,
        BundleIo io,
        SessionSpecs specs,
        DirectBufferPool buffers) {

    /** Checks for nulls. */
    public StageResources {
        Objects.requireNonNull(env, "env");
        Objects.requireNonNull(sessions, "sessions");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(io, "io");
        Objects.requireNonNull(specs, "specs");
        Objects.requireNonNull(buffers, "buffers");
    }

    /**
     * Resources with a pool of {@link DirectBufferPool#DEFAULT_MAX_POOLED_BYTES}.
     *
     * @param env the shared ONNX Runtime environment
     * @param sessions the session cache (memory policy)
     * @param config the bundle config
     * @param io the checked graph I/O
     * @param specs builds session specs from fed shapes
     */
    public StageResources(
            OrtEnvironment env, SessionCache sessions, BundleConfig config, BundleIo io, SessionSpecs specs) {
        this(env, sessions, config, io, specs, new DirectBufferPool(DirectBufferPool.DEFAULT_MAX_POOLED_BYTES));
    }

    /**
     * @param type the element type
     * @param shape the shape (all sizes fixed)
     * @return a zero-filled tensor over a pooled buffer; the caller closes it
     */
    TensorBuffer allocate(ElementType type, long... shape) {
        return TensorBuffer.allocate(buffers, env, type, shape);
    }

    /**
     * @param src a runtime-allocated or caller-owned tensor; read, not modified
     * @param type the element type wanted
     * @return {@code src}'s values converted to {@code type}, over a pooled buffer; the caller closes it
     */
    TensorBuffer convertedCopy(OnnxTensor src, ElementType type) {
        return TensorBuffer.convertedCopy(buffers, env, src, type);
    }

    /**
     * @param src a tensor; read, not modified
     * @param type the element type wanted
     * @return {@code src}'s values converted to {@code type}, over a pooled buffer; the caller closes it
     */
    TensorBuffer convertedCopy(TensorBuffer src, ElementType type) {
        return TensorBuffer.convertedCopy(buffers, env, src, type);
    }
}
