package dev.flux2.onnx;

import dev.flux2.api.InvalidRequestException;
import dev.flux2.onnx.session.OptimizationLevel;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The ONNX backend's options, set with {@code Flux2Pipeline.builder().option(key, value)}. Unknown keys and bad
 * values are rejected in {@code build()} with an {@link InvalidRequestException} listing what is accepted (a bad
 * option is the caller's mistake, not the bundle's, as {@code Flux2Pipeline.Builder.build()} documents).
 *
 * <table>
 *   <caption>Options</caption>
 *   <tr><th>Key</th><th>Values</th><th>Effect</th></tr>
 *   <tr><td>{@code graph_optimization_level}</td><td>{@code all} | {@code layout} | {@code extended} |
 *       {@code basic} | {@code disabled} (or ONNX Runtime's Python and Java names)</td><td>ONNX Runtime graph
 *       optimizations for every graph, overriding a per-graph
 *       {@code graph_optimization_level} in the config. Default: the config's, else {@code all}.</td></tr>
 *   <tr><td>{@code fused}</td><td>{@code auto} | {@code off}</td><td>{@code auto} (default) runs a bundle's fused
 *       multi-step transformer when the schedule allows it; {@code off} always runs per step.</td></tr>
 *   <tr><td>{@code pin_dimensions}</td><td>{@code true} | {@code false}</td><td>{@code true} (default) pins the
 *       graphs' symbolic dimensions to each call's sizes, so sessions are specialised per resolution;
 *       {@code false} lets one session serve every resolution (useful with RESIDENT and varying sizes).</td></tr>
 *   <tr><td>{@code device_id}</td><td>an integer ≥ 0</td><td>device index for CUDA, TensorRT, ROCm and DirectML.
 *       Default 0.</td></tr>
 * </table>
 *
 * @param optimizationLevel the level forced on every graph, if set
 * @param fusedEnabled whether fused graphs may be used
 * @param pinDimensions whether symbolic dimensions are pinned per call
 * @param deviceId the accelerator device index
 */
public record OnnxBackendOptions(
        Optional<OptimizationLevel> optimizationLevel, boolean fusedEnabled, boolean pinDimensions, int deviceId) {
    /** Option key: graph optimization level. */
    public static final String GRAPH_OPTIMIZATION_LEVEL = "graph_optimization_level";
    /** Option key: fused multi-step transformer. */
    public static final String FUSED = "fused";
    /** Option key: pin symbolic dimensions. */
    public static final String PIN_DIMENSIONS = "pin_dimensions";
    /** Option key: accelerator device index. */
    public static final String DEVICE_ID = "device_id";

    private static final List<String> KEYS = List.of(GRAPH_OPTIMIZATION_LEVEL, FUSED, PIN_DIMENSIONS, DEVICE_ID);

    /** Checks for nulls. */
    public OnnxBackendOptions {
        Objects.requireNonNull(optimizationLevel, "optimizationLevel");
    }

    /** @return the defaults (no override, fused auto, pinned dimensions, device 0) */
    public static OnnxBackendOptions defaults() {
        return new OnnxBackendOptions(Optional.empty(), true, true, 0);
    }

    /**
     * @param options the builder's options
     * @return the parsed options
     * @throws InvalidRequestException for an unknown key or a bad value
     */
    public static OnnxBackendOptions parse(Map<String, String> options) {
        for (String key : options.keySet()) {
            if (!KEYS.contains(key)) {
                throw new InvalidRequestException(
                        "unknown option '" + key + "' for the onnx backend; known options: " + new TreeSet<>(KEYS));
            }
        }
        Optional<OptimizationLevel> level = Optional.empty();
        if (options.containsKey(GRAPH_OPTIMIZATION_LEVEL)) {
            try {
                level = Optional.of(OptimizationLevel.parse(options.get(GRAPH_OPTIMIZATION_LEVEL)));
            } catch (IllegalArgumentException e) {
                throw new InvalidRequestException("option " + GRAPH_OPTIMIZATION_LEVEL + ": " + e.getMessage(), e);
            }
        }
        boolean fused = switch (value(options, FUSED, "auto")) {
            case "auto" -> true;
            case "off" -> false;
            default -> throw bad(FUSED, options.get(FUSED), "auto or off");
        };
        boolean pin = switch (value(options, PIN_DIMENSIONS, "true")) {
            case "true" -> true;
            case "false" -> false;
            default -> throw bad(PIN_DIMENSIONS, options.get(PIN_DIMENSIONS), "true or false");
        };
        int device;
        try {
            device = Integer.parseInt(value(options, DEVICE_ID, "0"));
        } catch (NumberFormatException e) {
            throw bad(DEVICE_ID, options.get(DEVICE_ID), "an integer >= 0");
        }
        if (device < 0) {
            throw bad(DEVICE_ID, options.get(DEVICE_ID), "an integer >= 0");
        }
        return new OnnxBackendOptions(level, fused, pin, device);
    }

    private static String value(Map<String, String> options, String key, String defaultValue) {
        return options.getOrDefault(key, defaultValue).trim().toLowerCase(Locale.ROOT);
    }

    private static InvalidRequestException bad(String key, String value, String expected) {
        return new InvalidRequestException("option " + key + " must be " + expected + ", got '" + value + "'");
    }
}
