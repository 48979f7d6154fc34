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
 * @param endsStage whether this is the stage's last run in the generation (a kept session returns its arena's free
 *     memory after that run only: after every denoise step it would give back and fault in its activations each
 *     step, which cost 70 % more time per step on the timing bundle)
 */
public record RunCall(
        Map<String, OnnxTensorLike> inputs,
        Set<String> requested,
        Map<String, OnnxValue> pinned,
        String where,
        boolean endsStage) {

    /**
     * A call that is its stage's last run (stages that run once).
     *
     * @param inputs input tensors by graph input name
     * @param requested outputs ONNX Runtime allocates
     * @param pinned outputs written into caller-owned tensors
     * @param where the stage and position
     */
    public RunCall(
            Map<String, OnnxTensorLike> inputs, Set<String> requested, Map<String, OnnxValue> pinned, String where) {
        this(inputs, requested, pinned, where, true);
    }

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
