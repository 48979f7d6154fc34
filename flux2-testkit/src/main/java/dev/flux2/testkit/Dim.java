package dev.flux2.testkit;

/**
 * One dimension of a declared graph shape: either a fixed size or a symbolic name (public because {@link Port}, a
 * public record, holds it). The same components in the same order as the backend's {@code dev.flux2.onnx.bundle.Dim},
 * which the testkit cannot use: it must not depend on the backend whose graphs it writes.
 *
 * @param value the fixed size, or -1 when it is symbolic
 * @param symbol the dimension's name, or null when it is fixed
 */
public record Dim(long value, String symbol) {

    static Dim sym(String symbol) {
        return new Dim(-1, symbol);
    }

    static Dim of(long size) {
        return new Dim(size, null);
    }

    boolean symbolic() {
        return symbol != null;
    }

    @Override
    public String toString() {
        return symbolic() ? symbol : Long.toString(value);
    }
}
