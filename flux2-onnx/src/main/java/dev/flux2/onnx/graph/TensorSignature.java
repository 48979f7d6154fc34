package dev.flux2.onnx.graph;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * A graph input or output as the graph file declares it.
 *
 * @param name the tensor name
 * @param elementType the element type
 * @param dims the dimensions, outermost first
 */
public record TensorSignature(String name, ElementType elementType, List<Dim> dims) {

    /** Validates and copies. */
    public TensorSignature {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(elementType, "elementType");
        dims = List.copyOf(dims);
    }

    /** @return the number of dimensions */
    public int rank() {
        return dims.size();
    }

    /** @param index dimension index @return the dimension */
    public Dim dim(int index) {
        return dims.get(index);
    }

    /** @return the shape as text, for example {@code [1, image_seq, 128]} */
    public String shapeText() {
        return dims.stream().map(Dim::toString).collect(Collectors.joining(", ", "[", "]"));
    }

    @Override
    public String toString() {
        return name + " " + elementType + " " + shapeText();
    }
}
