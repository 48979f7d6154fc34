package dev.flux2.onnx.passes;

import ai.onnx.proto.OnnxMl.ModelProto;
import java.util.List;
import java.util.Objects;

/**
 * What one pass did.
 *
 * @param model the graph after the pass (the input instance when nothing was rewritten)
 * @param candidates what the pass looked at (attention blocks, weight products, …)
 * @param rewritten how many of them it rewrote
 * @param leftAlone one reason per candidate left alone
 * @param summary one line for logs and {@code flux2 info}
 */
public record PassOutcome(ModelProto model, int candidates, int rewritten, List<String> leftAlone, String summary) {
    /** Copies the list, checks for nulls. */
    public PassOutcome {
        Objects.requireNonNull(model, "model");
        leftAlone = List.copyOf(leftAlone);
        Objects.requireNonNull(summary, "summary");
    }
}
