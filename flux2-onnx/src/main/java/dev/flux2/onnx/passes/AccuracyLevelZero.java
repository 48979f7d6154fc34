package dev.flux2.onnx.passes;

import ai.onnx.proto.OnnxMl.AttributeProto;
import ai.onnx.proto.OnnxMl.GraphProto;
import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnx.proto.OnnxMl.NodeProto;
import java.util.ArrayList;
import java.util.List;

/**
 * Sets every {@code MatMulNBits} node's {@code accuracy_level} to 0 ({@code cpu_tuned}'s {@code acc0}): fp32
 * compute, the activations not quantized to int8. A node without the attribute is at 0 already and left alone.
 * Immutable.
 */
public final class AccuracyLevelZero implements GraphPass {
    /** The pass's id. */
    public static final String ID = "accuracy-level-0";

    /** Raised whenever the pass writes anything different for the same input. */
    static final int VERSION = 1;

    private static final AccuracyLevelZero INSTANCE = new AccuracyLevelZero();

    private AccuracyLevelZero() {}

    /** @return the pass */
    public static AccuracyLevelZero pass() {
        return INSTANCE;
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
        GraphProto.Builder g = model.getGraph().toBuilder();
        int candidates = 0;
        int changed = 0;
        List<String> leftAlone = new ArrayList<>();
        for (int i = 0; i < g.getNodeCount(); i++) {
            NodeProto node = g.getNode(i);
            if (!node.getOpType().equals("MatMulNBits")) {
                continue;
            }
            candidates++;
            NodeProto.Builder b = node.toBuilder();
            boolean found = false;
            boolean set = false;
            for (int a = 0; a < b.getAttributeCount(); a++) {
                AttributeProto attr = b.getAttribute(a);
                if (attr.getName().equals("accuracy_level")) {
                    found = true;
                    if (attr.getI() != 0) {
                        b.setAttribute(a, attr.toBuilder().setI(0));
                        set = true;
                    }
                }
            }
            if (!found) {
                leftAlone.add(node.getName() + ": no accuracy_level (0 already)");
            } else if (!set) {
                leftAlone.add(node.getName() + ": accuracy_level 0 already");
            } else {
                changed++;
            }
            if (found) {
                g.setNode(i, b.build());
            }
        }
        if (changed == 0) {
            return new PassOutcome(model, candidates, 0, leftAlone, candidates + " MatMulNBits, none changed");
        }
        return new PassOutcome(
                model.toBuilder().setGraph(g).build(),
                candidates,
                changed,
                leftAlone,
                changed + " of " + candidates + " MatMulNBits at accuracy level 0");
    }
}
