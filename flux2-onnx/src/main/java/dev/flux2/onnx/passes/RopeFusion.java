package dev.flux2.onnx.passes;

import ai.onnx.proto.OnnxMl.ModelProto;
import dev.flux2.onnx.graph.GraphIndex;

/**
 * The RoPE fusion: every interleaved-pair rotary embedding the {@link RopeMatcher} recognises (ten nodes and four
 * full-size temporaries per q and per k) replaced by ONNX Runtime's {@code com.microsoft.RotaryEmbedding}
 * ({@link RopeEmitter}), in the graph's own element type (docs/fused-attention.md §10). The plan gives it to the
 * transformers on CUDA with {@code attention=auto}, where it was measured faster. Immutable; no parameters.
 */
public final class RopeFusion implements GraphPass {
    /** The pass's id. */
    public static final String ID = "rope-fusion";

    /** Raised whenever the matcher or the emitter writes anything different for the same input. */
    static final int VERSION = 1;

    private static final RopeFusion INSTANCE = new RopeFusion();

    private RopeFusion() {}

    /** @return the pass */
    public static RopeFusion pass() {
        return INSTANCE;
    }

    /**
     * The fusion on its own, outside a derived graph (the benchmarks, tests).
     *
     * @param model a graph (external data not needed)
     * @return the model with every recognised RoPE fused (the same instance when none was), and what was done
     */
    public static PassOutcome fuse(ModelProto model) {
        GraphIndex index = GraphIndex.of(model.getGraph());
        RopeMatcher.Matches m = RopeMatcher.match(model, index);
        ModelProto out = m.sites().isEmpty() ? model : RopeEmitter.emit(model, index, m.sites());
        String summary;
        if (m.candidates() == 0) {
            summary = "no RoPE (no Concat of a Sub and an Add)";
        } else {
            summary = m.sites().size() + " of " + m.candidates() + " RoPE candidates fused as RotaryEmbedding"
                    + (m.leftAlone().isEmpty()
                            ? ""
                            : "; not fused: " + String.join("; ", MhaResult.distinct(m.leftAlone())));
        }
        return new PassOutcome(out, m.candidates(), m.sites().size(), m.leftAlone(), summary);
    }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public int version() {
        return VERSION;
    }

    @Override
    public PassOutcome apply(ModelProto model, PassContext context) {
        return fuse(model);
    }
}
