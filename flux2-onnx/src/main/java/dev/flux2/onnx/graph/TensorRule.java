package dev.flux2.onnx.graph;

import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * What the contract requires of one tensor: its element type(s), its rank and the sizes of dimensions that are
 * known in advance. A graph dimension that is symbolic always passes; a fixed one must equal the known size.
 *
 * @param role what the tensor is, for messages
 * @param types accepted element types
 * @param rank required rank
 * @param fixedDims known sizes by dimension index
 */
public record TensorRule(String role, Set<ElementType> types, int rank, Map<Integer, Long> fixedDims) {

    /** Copies. */
    public TensorRule {
        Objects.requireNonNull(role, "role");
        types = Set.copyOf(types);
        fixedDims = Map.copyOf(fixedDims);
    }

    /**
     * @param role what the tensor is
     * @param type the element type
     * @param shape known sizes, -1 for sizes that vary (its length is the rank)
     * @return the rule
     */
    public static TensorRule of(String role, ElementType type, long... shape) {
        Map<Integer, Long> fixed = new TreeMap<>();
        for (int i = 0; i < shape.length; i++) {
            if (shape[i] >= 0) {
                fixed.put(i, shape[i]);
            }
        }
        return new TensorRule(role, Set.of(type), shape.length, fixed);
    }

    /** @return the expectation as text, for example {@code FLOAT16 of rank 3 [1, ?, 128]} */
    public String describe() {
        String shape = IntStream.range(0, rank)
                .mapToObj(i -> fixedDims.containsKey(i) ? Long.toString(fixedDims.get(i)) : "?")
                .collect(Collectors.joining(", ", "[", "]"));
        String typeText = types.stream().map(Enum::name).sorted().collect(Collectors.joining(" or "));
        return typeText + " of rank " + rank + " " + shape;
    }
}
