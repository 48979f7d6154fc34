package dev.flux2.onnx.passes;

import ai.onnx.proto.OnnxMl.ModelProto;
import dev.flux2.onnx.graph.GraphIndex;
import java.util.Objects;

/**
 * The MHA fusion: every attention block the {@link MhaMatcher} recognises replaced by ONNX Runtime's
 * {@code com.microsoft.MultiHeadAttention} ({@link MhaEmitter}), computing in the given {@link MhaPrecision}
 * (docs/fused-attention.md). Backend option {@code attention}. Immutable.
 */
public final class MhaFusion implements GraphPass {
    /** The pass's id. */
    public static final String ID = "mha-fusion";

    /** Raised whenever the matcher or the emitter writes anything different for the same input. */
    static final int VERSION = 1;

    private final MhaPrecision precision;

    private MhaFusion(MhaPrecision precision) {
        this.precision = Objects.requireNonNull(precision, "precision");
    }

    /**
     * @param precision what the fused nodes compute in
     * @return the pass
     */
    public static MhaFusion of(MhaPrecision precision) {
        return new MhaFusion(precision);
    }

    /**
     * Looks for attention without changing anything ({@code flux2 info}).
     *
     * @param model a graph (external data not needed)
     * @return what the fusion would do
     */
    public static MhaResult inspect(ModelProto model) {
        return MhaMatcher.match(model, GraphIndex.of(model.getGraph())).result();
    }

    /**
     * The fusion on its own, outside a derived graph (the benchmarks, tests).
     *
     * @param model a graph (external data not needed)
     * @param precision what the fused nodes compute in
     * @return the model with every recognised attention fused (the same instance when none was), and what was done
     */
    public static Fused fuse(ModelProto model, MhaPrecision precision) {
        GraphIndex index = GraphIndex.of(model.getGraph());
        MhaMatcher.Matches m = MhaMatcher.match(model, index);
        if (m.blocks().isEmpty()) {
            return new Fused(model, m.result());
        }
        return new Fused(MhaEmitter.emit(model, index, m.blocks(), precision), m.result());
    }

    /**
     * A fused model and what was done.
     *
     * @param model the model
     * @param result what was done
     */
    public record Fused(ModelProto model, MhaResult result) {}

    /** @return what the fused nodes compute in */
    public MhaPrecision precision() {
        return precision;
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
    public String parameters() {
        return precision.name().toLowerCase(java.util.Locale.ROOT);
    }

    @Override
    public PassOutcome apply(ModelProto model, PassContext context) {
        Fused f = fuse(model, precision);
        return new PassOutcome(
                f.model(),
                f.result().candidates(),
                f.result().fused(),
                f.result().notFused(),
                f.result().describe());
    }
}
