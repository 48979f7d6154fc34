package dev.flux2.onnx.session;

import ai.onnxruntime.OnnxTensorLike;
import ai.onnxruntime.OnnxValue;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One inference call: inputs, outputs that ONNX Runtime allocates, outputs written into caller-owned tensors, and
 * where the call belongs for messages. The tensors stay owned by the caller.
 *
 * @param inputs input tensors by graph input name
 * @param requested outputs ONNX Runtime allocates (returned in the result, closed with it)
 * @param pinned outputs written into caller-owned tensors
 * @param where the stage and position, for example {@code "transformer step 2/4"}
 */
public record RunCall(
        Map<String, OnnxTensorLike> inputs, Set<String> requested, Map<String, OnnxValue> pinned, String where) {

    /** Copies (keeping order). */
    public RunCall {
        inputs = Collections.unmodifiableMap(new LinkedHashMap<>(inputs));
        requested = Collections.unmodifiableSet(new LinkedHashSet<>(requested));
        pinned = Collections.unmodifiableMap(new LinkedHashMap<>(pinned));
        Objects.requireNonNull(where, "where");
        if (requested.isEmpty() && pinned.isEmpty()) {
            throw new IllegalArgumentException(where + ": a run needs at least one output");
        }
    }
}
