package dev.flux2.onnx.passes;

import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnx.proto.OnnxMl.NodeProto;
import dev.flux2.onnx.graph.Attributes;
import dev.flux2.onnx.graph.ElementTypes;
import dev.flux2.onnx.graph.GraphIndex;
import dev.flux2.onnx.graph.Nodes;
import dev.flux2.onnx.graph.Opsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * Finds the attention blocks of a graph for the MHA fusion, by structure only (never by node names): every
 * {@code Softmax} over the last axis whose input is {@code MatMul(q, kᵀ)} (optionally multiplied or divided by a
 * scalar constant), whose output feeds, through at most one {@code Cast}, the left side of one {@code MatMul(·, v)},
 * with no other use of the intermediate values. {@code kᵀ} is a {@code Transpose} of the last two axes of k, or a
 * tensor of known rank (the VAE's attention chunk takes kᵀ as its input; it is transposed back). Scalar scales
 * directly on q or k (a {@code Mul} by a scalar constant, possibly seen through one {@code Slice}, as the seed export
 * scales q and k by 128^-0.25 each before slicing head groups) and on the scores are folded into the block's scale;
 * anything else (RoPE, normalisation) stays outside. Each Softmax that does not fit gets a reason. Changes nothing.
 */
final class MhaMatcher {
    private final GraphIndex index;
    private final List<MhaBlock> blocks = new ArrayList<>();

    private MhaMatcher(GraphIndex index) {
        this.index = index;
    }

    /** The blocks found and the reasons of the Softmax nodes left alone. */
    record Matches(int candidates, List<MhaBlock> blocks, List<String> notFused) {
        Matches {
            blocks = List.copyOf(blocks);
            notFused = List.copyOf(notFused);
        }

        MhaResult result() {
            return new MhaResult(candidates, blocks.size(), notFused);
        }
    }

    /**
     * @param model the model
     * @param index its graph's index
     * @return the attention blocks and the reasons of the others
     */
    static Matches match(ModelProto model, GraphIndex index) {
        MhaMatcher m = new MhaMatcher(index);
        int candidates = 0;
        List<String> reasons = new ArrayList<>();
        OptionalLong opset = Opsets.version(model, Opsets.DEFAULT);
        for (int i = 0; i < index.graph().getNodeCount(); i++) {
            NodeProto n = index.node(i);
            if (!n.getOpType().equals("Softmax") || !Nodes.standard(n)) {
                continue;
            }
            candidates++;
            String why = opset.isEmpty()
                    ? "the graph imports no ONNX opset"
                    : opset.getAsLong() < 13 ? "opset " + opset.getAsLong() + " < 13" : m.matchAt(i);
            if (why != null) {
                reasons.add(why);
            }
        }
        return new Matches(candidates, m.blocks, reasons);
    }

    private String matchAt(int softmax) {
        NodeProto sm = index.node(softmax);
        long axis = Attributes.intValue(sm, "axis", -1);
        Integer smRank = index.rankThroughCasts(sm.getInput(0));
        if (axis != -1 && (smRank == null || axis != smRank - 1)) {
            return "softmax over axis " + axis + ", not the last";
        }
        // Scores: MatMul, or MatMul times/divided by a scalar.
        int scoresNode = index.producerOf(sm.getInput(0));
        double scale = 1.0;
        int scoreScaleNode = -1;
        if (scoresNode >= 0 && index.isOp(scoresNode, "Mul", "Div")) {
            NodeProto m = index.node(scoresNode);
            OptionalDouble c = index.scalar(m.getInput(1));
            int inner = index.producerOf(m.getInput(0));
            if (c.isEmpty() && m.getOpType().equals("Mul")) {
                c = index.scalar(m.getInput(0));
                inner = index.producerOf(m.getInput(1));
            }
            if (c.isEmpty() || c.getAsDouble() == 0) {
                return "the softmax input is a " + m.getOpType() + " by a non-constant (a mask or bias)";
            }
            scale = m.getOpType().equals("Mul") ? c.getAsDouble() : 1.0 / c.getAsDouble();
            scoreScaleNode = scoresNode;
            scoresNode = inner;
            if (scoresNode >= 0 && !index.singleUse(index.node(scoresNode).getOutput(0), 1)) {
                return "the scores are used elsewhere too";
            }
        }
        if (scoresNode < 0 || !index.isOp(scoresNode, "MatMul")) {
            return "the softmax input is not q·kᵀ (a MatMul) but "
                    + (scoresNode < 0 ? "a graph input" : index.node(scoresNode).getOpType());
        }
        NodeProto scores = index.node(scoresNode);
        if (!index.singleUse(scores.getOutput(0), 1) || !index.singleUse(sm.getInput(0), 1)) {
            return "the scores are used elsewhere too";
        }
        // Probabilities: Softmax → [Cast] → MatMul(·, v).
        String probs = sm.getOutput(0);
        int castNode = -1;
        int consumer = index.soleConsumer(probs);
        if (consumer >= 0 && index.isOp(consumer, "Cast")) {
            castNode = consumer;
            probs = index.node(consumer).getOutput(0);
            consumer = index.soleConsumer(probs);
        }
        if (consumer < 0
                || !index.isOp(consumer, "MatMul")
                || !index.node(consumer).getInput(0).equals(probs)) {
            return "the probabilities are not used by one MatMul with v alone";
        }
        NodeProto out = index.node(consumer);
        // q and k, with scalar scales folded.
        Scaled q = unscale(scores.getInput(0));
        scale *= q.scale;
        String kt = scores.getInput(1);
        int ktNode = index.producerOf(kt);
        boolean transposed = false;
        Scaled k = new Scaled(kt, Optional.empty(), 1.0);
        int ktRank = -1;
        if (ktNode >= 0 && index.isOp(ktNode, "Transpose") && swapsLastTwo(index.node(ktNode))) {
            transposed = true;
            k = unscale(index.node(ktNode).getInput(0));
            scale *= k.scale;
        } else {
            Integer r = index.rankThroughCasts(kt);
            if (r == null || r < 2) {
                return "kᵀ is neither a Transpose of the last two axes nor of known rank";
            }
            ktRank = r;
        }
        int qType = index.types().of(q.value);
        int kType = index.types().of(k.value);
        int vType = index.types().of(out.getInput(1));
        int outType = index.types().of(out.getOutput(0));
        if (!ElementTypes.floating(qType)
                || !ElementTypes.floating(kType)
                || !ElementTypes.floating(vType)
                || !ElementTypes.floating(outType)) {
            return "element types of q, k, v or the output not known to be floating point";
        }
        blocks.add(new MhaBlock(
                softmax,
                scoresNode,
                scoreScaleNode,
                castNode,
                consumer,
                q.value,
                q.slice,
                k.value,
                k.slice,
                transposed,
                ktRank,
                out.getInput(1),
                out.getOutput(0),
                outType,
                qType,
                kType,
                vType,
                scale));
        return null;
    }

    private record Scaled(String value, Optional<NodeProto> slice, double scale) {}

    /** x·c → (x, c); Slice(x·c) → (Slice(x), c); anything else as it is. */
    private Scaled unscale(String value) {
        int p = index.producerOf(value);
        if (p >= 0 && index.isOp(p, "Slice")) {
            NodeProto slice = index.node(p);
            int inner = index.producerOf(slice.getInput(0));
            if (inner >= 0 && index.isOp(inner, "Mul")) {
                Optional<Scaled> s = scalarMul(index.node(inner));
                if (s.isPresent()) {
                    NodeProto.Builder b = slice.toBuilder().setInput(0, s.get().value);
                    return new Scaled(value, Optional.of(b.build()), s.get().scale);
                }
            }
            return new Scaled(value, Optional.empty(), 1.0);
        }
        if (p >= 0 && index.isOp(p, "Mul")) {
            return scalarMul(index.node(p)).orElse(new Scaled(value, Optional.empty(), 1.0));
        }
        return new Scaled(value, Optional.empty(), 1.0);
    }

    private Optional<Scaled> scalarMul(NodeProto mul) {
        OptionalDouble c = index.scalar(mul.getInput(1));
        String x = mul.getInput(0);
        if (c.isEmpty()) {
            c = index.scalar(mul.getInput(0));
            x = mul.getInput(1);
        }
        if (c.isEmpty() || c.getAsDouble() == 0) {
            return Optional.empty();
        }
        return Optional.of(new Scaled(x, Optional.empty(), c.getAsDouble()));
    }

    private static boolean swapsLastTwo(NodeProto transpose) {
        List<Long> perm = Attributes.intsValue(transpose, "perm").orElse(null);
        if (perm == null || perm.size() < 2) {
            // Without perm a Transpose reverses every axis, which swaps the last two only at rank 2: the rank is
            // not known here, so it is not taken as kᵀ.
            return false;
        }
        int r = perm.size();
        for (int i = 0; i < r - 2; i++) {
            if (perm.get(i) != i) {
                return false;
            }
        }
        return perm.get(r - 2) == r - 1 && perm.get(r - 1) == r - 2;
    }
}
