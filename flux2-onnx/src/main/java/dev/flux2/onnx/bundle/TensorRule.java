package dev.flux2.onnx.bundle;

import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What the contract requires of one tensor: its element type(s), its rank(s) and the sizes of dimensions that are
 * known in advance. A graph dimension that is symbolic always passes; a fixed one must equal the known size. A
 * tensor whose graph declares no shape at all passes on its type alone.
 *
 * @param role what the tensor is, for messages
 * @param types accepted element types
 * @param ranks accepted ranks
 * @param fixedDims known sizes by dimension index (indices beyond a tensor's rank are not checked)
 */
record TensorRule(String role, Set<ElementType> types, Set<Integer> ranks, Map<Integer, Long> fixedDims) {

    /** Copies. */
    public TensorRule {
        Objects.requireNonNull(role, "role");
        types = Set.copyOf(types);
        ranks = Set.copyOf(ranks);
        fixedDims = Map.copyOf(fixedDims);
        if (types.isEmpty() || ranks.isEmpty()) {
            throw new IllegalArgumentException("a tensor rule needs at least one type and one rank");
        }
    }

    /**
     * @param role what the tensor is
     * @param type the element type
     * @param shape known sizes, -1 for sizes that vary (its length is the rank)
     * @return the rule
     */
    public static TensorRule of(String role, ElementType type, long... shape) {
        return of(role, Set.of(type), shape);
    }

    /**
     * @param role what the tensor is
     * @param types the accepted element types
     * @param shape known sizes, -1 for sizes that vary (its length is the rank)
     * @return the rule
     */
    public static TensorRule of(String role, Set<ElementType> types, long... shape) {
        return new TensorRule(role, types, Set.of(shape.length), fixed(shape));
    }

    /**
     * A tensor holding one value: rank 0, or rank 1 of size 1 (a symbolic size is fed as 1).
     *
     * @param role what the tensor is
     * @param types the accepted element types
     * @return the rule
     */
    public static TensorRule singleValue(String role, Set<ElementType> types) {
        return new TensorRule(role, types, Set.of(0, 1), Map.of(0, 1L));
    }

    /**
     * @param role what the tensor is
     * @param types the accepted element types
     * @param rank the rank
     * @return a rule with no known sizes
     */
    static TensorRule anyShape(String role, Set<ElementType> types, int rank) {
        return new TensorRule(role, types, Set.of(rank), Map.of());
    }

    private static Map<Integer, Long> fixed(long... shape) {
        Map<Integer, Long> fixed = new TreeMap<>();
        for (int i = 0; i < shape.length; i++) {
            if (shape[i] >= 0) {
                fixed.put(i, shape[i]);
            }
        }
        return fixed;
    }

    /**
     * @param t a tensor signature
     * @return whether it satisfies this rule
     */
    boolean accepts(TensorSignature t) {
        if (!t.rankKnown()) {
            // A graph that declares no shape takes whatever shape is fed; only the type can be checked.
            return types.contains(t.elementType());
        }
        if (!types.contains(t.elementType()) || !ranks.contains(t.rank())) {
            return false;
        }
        for (Map.Entry<Integer, Long> e : fixedDims.entrySet()) {
            if (e.getKey() < t.rank()) {
                Dim d = t.dim(e.getKey());
                if (d.isFixed() && d.value() != e.getValue()) {
                    return false;
                }
            }
        }
        return true;
    }

    /** @return the expectation as text, for example {@code FLOAT or FLOAT16 of rank 3 [1, ?, 128]} */
    public String describe() {
        String typeText = types.stream().map(Enum::name).sorted().collect(Collectors.joining(" or "));
        String rankText = ranks.stream().sorted().map(String::valueOf).collect(Collectors.joining(" or "));
        int shown = ranks.stream().mapToInt(Integer::intValue).max().orElse(0);
        StringBuilder shape = new StringBuilder("[");
        for (int i = 0; i < shown; i++) {
            shape.append(i == 0 ? "" : ", ").append(fixedDims.containsKey(i) ? Long.toString(fixedDims.get(i)) : "?");
        }
        return typeText + " of rank " + rankText + " " + shape.append(']');
    }
}
