package dev.flux2.onnx.options;

import java.util.Locale;

/** ONNX Runtime graph optimization levels by the names the bundle config and the backend options use. */
public enum OptimizationLevel {
    /** No graph optimizations (what the browser engine uses for this bundle). */
    DISABLED,
    /** Constant folding and redundant-node elimination. */
    BASIC,
    /** Basic plus node fusions. */
    EXTENDED,
    /** Extended plus layout optimizations (NCHW → NCHWc and similar). */
    LAYOUT,
    /** Everything, including layout optimizations (ONNX Runtime's default). */
    ALL;

    /**
     * Parses the names the bundle config (ONNX Runtime Web's {@code graphOptimizationLevel}: {@code disabled},
     * {@code basic}, {@code extended}, {@code layout}, {@code all}), ONNX Runtime Python
     * ({@code ORT_DISABLE_ALL}, {@code ORT_ENABLE_BASIC}, …), ONNX Runtime Java ({@code NO_OPT}, {@code BASIC_OPT},
     * …) and the C API's numbers (0, 1, 2, 3, 99) use for the same levels.
     *
     * @param name a level name, case-insensitive
     * @return the level
     * @throws IllegalArgumentException naming the bad value and the accepted ones
     */
    public static OptimizationLevel parse(String name) {
        String n = name == null ? "" : name.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        if (n.startsWith("ORT_")) {
            n = n.substring(4);
        }
        return switch (n) {
            case "DISABLED", "DISABLE", "DISABLE_ALL", "NONE", "NO_OPT", "0" -> DISABLED;
            case "BASIC", "ENABLE_BASIC", "BASIC_OPT", "1" -> BASIC;
            case "EXTENDED", "ENABLE_EXTENDED", "EXTENDED_OPT", "2" -> EXTENDED;
            case "LAYOUT", "ENABLE_LAYOUT", "LAYOUT_OPT", "3" -> LAYOUT;
            case "ALL", "ENABLE_ALL", "ALL_OPT", "99" -> ALL;
            default ->
                throw new IllegalArgumentException("unknown graph optimization level '" + name
                        + "', expected disabled, basic, extended, layout or all");
        };
    }
}
