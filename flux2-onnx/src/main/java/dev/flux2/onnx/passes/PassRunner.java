package dev.flux2.onnx.passes;

import ai.onnx.proto.OnnxMl.ModelProto;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Applies passes to a graph in the one fixed order: LoRA branches first (they sit beside the weight products,
 * whatever form those take next; requests without LoRA never run this pass), then weights dequantized (the fp32
 * conversion then widens the re-typed scales like any fp16 initializer), then the RoPE fusion (it leaves the rotated
 * values' names, which the attention reads, as they were), then the MHA fusion on the source's types (the fp32
 * conversion then re-types the casts it adds), then fp32 activations, then {@code MatMulNBits}' accuracy level.
 * Stateless.
 */
public final class PassRunner {
    /** The ids in the order they are applied. */
    static final List<String> ORDER = List.of(
            LoraBranches.ID,
            WeightDequantization.ID,
            RopeFusion.ID,
            MhaFusion.ID,
            Fp32Activations.ID,
            AccuracyLevelZero.ID);

    private PassRunner() {}

    /**
     * What a run did.
     *
     * @param model the graph after every pass
     * @param outcomes one per pass, in order
     * @param changed whether the graph differs from the source
     */
    public record Run(ModelProto model, List<PassOutcome> outcomes, boolean changed) {
        /** Copies the list. */
        public Run {
            outcomes = List.copyOf(outcomes);
        }

        /** @return the passes' summaries, {@code "; "}-separated */
        public String describe() {
            return String.join("; ", outcomes.stream().map(PassOutcome::summary).toList());
        }
    }

    /**
     * @param passes passes, any order, at most one per id
     * @return them in the order they are applied
     * @throws IllegalArgumentException for an unknown id or two passes of one id
     */
    public static List<GraphPass> inOrder(List<GraphPass> passes) {
        Set<String> ids = new HashSet<>();
        for (GraphPass p : passes) {
            if (!ORDER.contains(p.id())) {
                throw new IllegalArgumentException("unknown graph pass " + p.id() + "; known: " + ORDER);
            }
            if (!ids.add(p.id())) {
                throw new IllegalArgumentException("graph pass " + p.id() + " given twice");
            }
        }
        List<GraphPass> sorted = new ArrayList<>(passes);
        sorted.sort(Comparator.comparingInt(p -> ORDER.indexOf(p.id())));
        return List.copyOf(sorted);
    }

    /**
     * @param source the graph (external data not loaded); not modified
     * @param passes the passes, applied in {@link #inOrder} order
     * @param context where external data is read and new data written
     * @return the result
     * @throws IOException when a pass cannot read or write external data
     */
    public static Run run(ModelProto source, List<GraphPass> passes, PassContext context) throws IOException {
        ModelProto model = source;
        List<PassOutcome> outcomes = new ArrayList<>();
        for (GraphPass pass : inOrder(passes)) {
            PassOutcome o = pass.apply(model, context);
            outcomes.add(o);
            model = o.model();
        }
        return new Run(model, outcomes, !model.equals(source));
    }
}
