package dev.flux2.testkit;

/**
 * One dimension of a declared graph shape: either a symbolic name or a fixed size (public because {@link Port}, a
 * public record, holds it).
 *
 * @param symbol the dimension's name, or null when it is fixed
 * @param size the fixed size, or -1 when it is symbolic
 */
public record Dim(String symbol, long size) {

    static Dim sym(String symbol) {
        return new Dim(symbol, -1);
    }

    static Dim of(long size) {
        return new Dim(null, size);
    }

    boolean symbolic() {
        return symbol != null;
    }

    @Override
    public String toString() {
        return symbolic() ? symbol : Long.toString(size);
    }
}
