package dev.flux2.onnx.stage;

import ai.onnxruntime.OrtEnvironment;
import dev.flux2.onnx.config.BundleConfig;
import dev.flux2.onnx.graph.BundleIo;
import dev.flux2.onnx.session.SessionCache;
import java.util.Objects;

/**
 * What every stage needs: the environment, the session cache, the config, the checked graph I/O and the session
 * spec builder. Owned by the backend, which closes the cache.
 *
 * @param env the shared ONNX Runtime environment
 * @param sessions the session cache (memory policy)
 * @param config the bundle config
 * @param io the checked graph I/O
 * @param specs builds session specs from fed shapes
 */
public record StageResources(OrtEnvironment env, SessionCache sessions, BundleConfig config, BundleIo io,
        SessionSpecs specs) {

    /** Checks for nulls. */
    public StageResources {
        Objects.requireNonNull(env, "env");
        Objects.requireNonNull(sessions, "sessions");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(io, "io");
        Objects.requireNonNull(specs, "specs");
    }
}
