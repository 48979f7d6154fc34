package dev.flux2.onnx.passes;

import ai.onnx.proto.OnnxMl.ModelProto;
import java.io.IOException;

/**
 * One rewrite of an ONNX graph: it looks at candidates (attention blocks, weight products, …), rewrites those it can
 * and gives a reason for every one it leaves alone. A pass declares its id and its version next to its code; the
 * version is raised whenever the pass writes anything different for the same input (its golden test, {@code
 * PassGoldenTest}, fails until it is), because derived graphs are stored under the ids and versions of the passes
 * that made them ({@code dev.flux2.onnx.derived.GraphFingerprint}). Implementations are immutable.
 */
public interface GraphPass {
    /** @return the pass's id, e.g. {@code mha-fusion} */
    String id();

    /** @return the version of what the pass writes; raised when its output changes for the same input */
    int version();

    /** @return the parameters that change the output (e.g. {@code fp16}); {@code ""}, the default, when none */
    default String parameters() {
        return "";
    }

    /**
     * @param model the graph (external data not loaded); not modified
     * @param context where the source's external data is, and where new data goes
     * @return the rewritten graph (the same instance when nothing was rewritten) and what was done
     * @throws IOException when external data the pass needs cannot be read or written
     */
    PassOutcome apply(ModelProto model, PassContext context) throws IOException;

    /** @return {@code id@version}, with the parameters in parentheses when there are any: the store's key part */
    default String key() {
        return id() + "@" + version() + (parameters().isEmpty() ? "" : "(" + parameters() + ")");
    }
}
