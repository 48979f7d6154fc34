package dev.flux2.onnx.bundle;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * A graph input or output as the graph file declares it.
 *
 * @param name the tensor name
 * @param elementType the element type
 * @param dims the dimensions, outermost first (empty when the rank is unknown)
 * @param rankKnown false when the graph declares no shape at all (ONNX allows it: any rank is accepted at run time)
 */
public record TensorSignature(String name, ElementType elementType, List<Dim> dims, boolean rankKnown) {

    /** Validates and copies. */
    public TensorSignature {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(elementType, "elementType");
        dims = List.copyOf(dims);
        if (!rankKnown && !dims.isEmpty()) {
            throw new IllegalArgumentException("a tensor of unknown rank has no dimensions");
        }
    }

    /**
     * A tensor with a declared shape.
     *
     * @param name the tensor name
     * @param elementType the element type
     * @param dims the dimensions, outermost first
     */
    public TensorSignature(String name, ElementType elementType, List<Dim> dims) {
        this(name, elementType, dims, true);
    }

    /**
     * @param index a dimension index
     * @return that dimension, or a free one when the rank is unknown or smaller
     */
    public Dim dimOrFree(int index) {
        return index < dims.size() ? dims.get(index) : Dim.symbolic("");
    }

    /** @return the number of dimensions */
    public int rank() {
        return dims.size();
    }

    /** @param index dimension index @return the dimension */
    public Dim dim(int index) {
        return dims.get(index);
    }

    /** @return the shape as text, for example {@code [1, image_seq, 128]}, or {@code [unknown rank]} */
    public String shapeText() {
        if (!rankKnown) {
            return "[unknown rank]";
        }
        return dims.stream().map(Dim::toString).collect(Collectors.joining(", ", "[", "]"));
    }

    @Override
    public String toString() {
        return name + " " + elementType + " " + shapeText();
    }
}
