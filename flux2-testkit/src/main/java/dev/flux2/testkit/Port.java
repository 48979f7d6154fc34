package dev.flux2.testkit;

import java.util.List;

/** A graph input or output as the real bundle declares it (before any failure-test override). */
public record Port(String name, TensorElementType type, List<Dim> shape) {
    /** Copies the shape. */
    public Port {
        shape = List.copyOf(shape);
    }

    static Port of(String name, TensorElementType type, Dim... shape) {
        return new Port(name, type, List.of(shape));
    }
}
