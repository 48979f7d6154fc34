package dev.flux2.onnx.session;

import ai.onnxruntime.OrtSession.SessionOptions.OptLevel;
import java.util.Locale;

/** ONNX Runtime graph optimization levels by the names the bundle config and the backend options use. */
public enum OptimizationLevel {
    /** No graph optimizations (what the browser engine uses for this bundle). */
    DISABLED(OptLevel.NO_OPT),
    /** Constant folding and redundant-node elimination. */
    BASIC(OptLevel.BASIC_OPT),
    /** Basic plus node fusions. */
    EXTENDED(OptLevel.EXTENDED_OPT),
    /** Everything, including layout optimizations (ONNX Runtime's default). */
    ALL(OptLevel.ALL_OPT);

    private final OptLevel ortLevel;

    OptimizationLevel(OptLevel ortLevel) {
        this.ortLevel = ortLevel;
    }

    /** @return the ONNX Runtime level */
    public OptLevel ortLevel() {
        return ortLevel;
    }

    /**
     * @param name {@code all}, {@code extended}, {@code basic} or {@code disabled} (case-insensitive)
     * @return the level
     * @throws IllegalArgumentException naming the bad value and the accepted ones
     */
    public static OptimizationLevel parse(String name) {
        String n = name == null ? "" : name.trim().toUpperCase(Locale.ROOT);
        for (OptimizationLevel level : values()) {
            if (level.name().equals(n)) {
                return level;
            }
        }
        throw new IllegalArgumentException("unknown graph optimization level '" + name
                + "', expected all, extended, basic or disabled");
    }
}
