package dev.flux2.onnx.bundle;

import java.util.Objects;

/**
 * One dimension of a graph tensor: a fixed size, a named symbolic size, or unknown.
 *
 * @param value the fixed size, or -1 when not fixed
 * @param symbol the symbolic name (for example {@code image_seq}), or empty when fixed or anonymous
 */
public record Dim(long value, String symbol) {

    /** Validates. */
    public Dim {
        Objects.requireNonNull(symbol, "symbol");
        if (value < -1) {
            throw new IllegalArgumentException("dimension must be >= -1, got " + value);
        }
    }

    /** @param value a fixed size @return the dimension */
    public static Dim fixed(long value) {
        return new Dim(value, "");
    }

    /** @param symbol a symbolic name (may be empty for an anonymous free dimension) @return the dimension */
    static Dim symbolic(String symbol) {
        return new Dim(-1, symbol);
    }

    /** @return whether the size is fixed in the graph */
    public boolean isFixed() {
        return value >= 0;
    }

    @Override
    public String toString() {
        if (isFixed()) {
            return Long.toString(value);
        }
        return symbol.isEmpty() ? "?" : symbol;
    }
}
