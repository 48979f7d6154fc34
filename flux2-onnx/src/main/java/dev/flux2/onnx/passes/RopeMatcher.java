package dev.flux2.onnx.passes;

import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnx.proto.OnnxMl.NodeProto;
import ai.onnx.proto.OnnxMl.TensorProto;
import dev.flux2.onnx.graph.Attributes;
import dev.flux2.onnx.graph.GraphIndex;
import dev.flux2.onnx.graph.Nodes;
import dev.flux2.onnx.graph.Opsets;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Finds interleaved-pair RoPE in a graph (docs/fused-attention.md §10): x [B, N, S, D] reshaped to pairs
 * [0, 0, 0, D/2, 2], the two halves sliced on axis 4, {@code x₀·cos − x₁·sin} and {@code x₀·sin + x₁·cos} (four
 * Muls, a Sub, an Add; operands in either order), joined on axis 4 and reshaped back to [0, 0, 0, D], where cos and
 * sin are Unsqueezes on axes [1, 4] of per-token rows [1, S, D/2]. Every {@code Concat} of a Sub's and an Add's
 * output is a candidate; each one not of that form, or whose temporaries are read elsewhere, gets its reason.
 * Stateless.
 */
final class RopeMatcher {
    private RopeMatcher() {}

    /**
     * One RoPE site.
     *
     * @param nodes the nodes replaced (pairs Reshape when nothing else reads it, the Slices, Muls, Sub, Add, Concat)
     * @param back the Reshape back to [.., D], whose output the fused node writes
     * @param input x
     * @param cosRows the cos rows [1, S, D/2]
     * @param sinRows the sin rows [1, S, D/2]
     * @param half D/2
     */
    record Site(List<Integer> nodes, int back, String input, String cosRows, String sinRows, long half) {
        Site {
            nodes = List.copyOf(nodes);
        }
    }

    /**
     * @param sites what can be fused, in graph order
     * @param candidates Concats of a Sub and an Add looked at
     * @param leftAlone one reason per candidate not fused
     */
    record Matches(List<Site> sites, int candidates, List<String> leftAlone) {
        Matches {
            sites = List.copyOf(sites);
            leftAlone = List.copyOf(leftAlone);
        }
    }

    static Matches match(ModelProto model, GraphIndex index) {
        List<Site> sites = new ArrayList<>();
        List<String> reasons = new ArrayList<>();
        int candidates = 0;
        boolean opsetOk = Opsets.version(model, Opsets.DEFAULT).orElse(0) >= 13;
        for (int i = 0; i < index.graph().getNodeCount(); i++) {
            NodeProto concat = index.node(i);
            if (!Nodes.isOp(concat, "Concat") || concat.getInputCount() != 2) {
                continue;
            }
            int sub = index.producerOf(concat.getInput(0));
            int add = index.producerOf(concat.getInput(1));
            if (sub < 0 || add < 0 || !index.isOp(sub, "Sub") || !index.isOp(add, "Add")) {
                continue;
            }
            candidates++;
            String name = concat.getName().isEmpty() ? concat.getOutput(0) : concat.getName();
            if (!opsetOk) {
                reasons.add(name + ": the graph's ONNX opset is below 13 (Unsqueeze's axes input)");
                continue;
            }
            String why = site(index, i, sub, add, sites);
            if (why != null) {
                reasons.add(name + ": " + why);
            }
        }
        return new Matches(sites, candidates, reasons);
    }

    /** Adds the site at this Concat, or says why there is none. */
    private static String site(GraphIndex index, int concat, int sub, int add, List<Site> sites) {
        NodeProto c = index.node(concat);
        if (Attributes.intValue(c, "axis", Long.MIN_VALUE) != 4) {
            return "joins on axis " + Attributes.intValue(c, "axis", 0) + ", not the pairs' axis 4";
        }
        if (!index.singleUse(c.getInput(0), 1) || !index.singleUse(c.getInput(1), 1)) {
            return "the rotated halves are read elsewhere";
        }
        int[] muls = {
            index.producerOf(index.node(sub).getInput(0)),
            index.producerOf(index.node(sub).getInput(1)),
            index.producerOf(index.node(add).getInput(0)),
            index.producerOf(index.node(add).getInput(1))
        };
        for (int m : muls) {
            if (m < 0 || !index.isOp(m, "Mul")) {
                return "the Sub's and the Add's operands are not four Muls";
            }
            if (!index.singleUse(index.node(m).getOutput(0), 1)) {
                return "a product is read elsewhere";
            }
        }
        // Each Mul: (a Slice of the pairs, a factor); Sub = x0·cos − x1·sin, Add = x0·sin + x1·cos or x1·cos + x0·sin.
        String[][] terms = new String[4][];
        for (int j = 0; j < 4; j++) {
            terms[j] = sliceAndFactor(index, index.node(muls[j]));
            if (terms[j] == null) {
                return "a product is not of a Slice and a factor";
            }
        }
        String x0 = terms[0][0];
        String x1 = terms[1][0];
        String cos = terms[0][1];
        String sin = terms[1][1];
        boolean addOrdered =
                terms[2][0].equals(x0) && terms[2][1].equals(sin) && terms[3][0].equals(x1) && terms[3][1].equals(cos);
        boolean addSwapped =
                terms[3][0].equals(x0) && terms[3][1].equals(sin) && terms[2][0].equals(x1) && terms[2][1].equals(cos);
        if (x0.equals(x1) || cos.equals(sin) || !(addOrdered || addSwapped)) {
            return "not the rotation x0·cos − x1·sin, x0·sin + x1·cos";
        }
        NodeProto s0 = index.node(index.producerOf(x0));
        NodeProto s1 = index.node(index.producerOf(x1));
        if (!s0.getInput(0).equals(s1.getInput(0))
                || !sliceIs(index, s0, 0, 1)
                || !sliceIs(index, s1, 1, 2)
                || !index.singleUse(x0, 2)
                || !index.singleUse(x1, 2)) {
            return "the halves are not the pairs' elements 0 and 1 on axis 4, read by the rotation only";
        }
        int pairs = index.producerOf(s0.getInput(0));
        long[] pairShape = pairs < 0 || !index.isOp(pairs, "Reshape") ? null : longs(index, index.node(pairs), 1);
        if (pairShape == null
                || pairShape.length != 5
                || pairShape[0] != 0
                || pairShape[1] != 0
                || pairShape[2] != 0
                || pairShape[3] <= 0
                || pairShape[4] != 2) {
            return "the pairs are not a Reshape of x [B, N, S, D] to [0, 0, 0, D/2, 2]";
        }
        long half = pairShape[3];
        int back = index.soleConsumer(c.getOutput(0));
        long[] backShape = back < 0 || !index.isOp(back, "Reshape") ? null : longs(index, index.node(back), 1);
        if (backShape == null || !Arrays.equals(backShape, new long[] {0, 0, 0, 2 * half})) {
            return "the joined pairs are not reshaped back to [0, 0, 0, D] alone";
        }
        String cosRows = rows(index, cos);
        String sinRows = rows(index, sin);
        if (cosRows == null || sinRows == null) {
            return "cos or sin is not an Unsqueeze on axes [1, 4] of per-token rows";
        }
        List<Integer> nodes = new ArrayList<>();
        String pairsOut = index.node(pairs).getOutput(0);
        if (index.singleUse(pairsOut, 2)) {
            nodes.add(pairs);
        }
        nodes.add(index.producerOf(x0));
        nodes.add(index.producerOf(x1));
        for (int m : muls) {
            nodes.add(m);
        }
        nodes.add(sub);
        nodes.add(add);
        nodes.add(concat);
        sites.add(new Site(nodes, back, index.node(pairs).getInput(0), cosRows, sinRows, half));
        return null;
    }

    /** {slice output, factor} for a Mul of a Slice's output and another value, else null. */
    private static String[] sliceAndFactor(GraphIndex index, NodeProto mul) {
        for (int j = 0; j < 2; j++) {
            int p = index.producerOf(mul.getInput(j));
            if (p >= 0 && index.isOp(p, "Slice")) {
                return new String[] {mul.getInput(j), mul.getInput(1 - j)};
            }
        }
        return null;
    }

    /** A Slice of [start, end) on axis 4 (or −1 of rank 5), step 1. */
    private static boolean sliceIs(GraphIndex index, NodeProto slice, long start, long end) {
        long[] starts = longs(index, slice, 1);
        long[] ends = longs(index, slice, 2);
        long[] axes = slice.getInputCount() > 3 ? longs(index, slice, 3) : null;
        long[] steps = Nodes.hasInput(slice, 4) ? longs(index, slice, 4) : new long[] {1};
        return Arrays.equals(starts, new long[] {start})
                && Arrays.equals(ends, new long[] {end})
                && axes != null
                && axes.length == 1
                && (axes[0] == 4 || axes[0] == -1)
                && Arrays.equals(steps, new long[] {1});
    }

    /** The rows an Unsqueeze on axes [1, 4] (input form, opset 13+) widens, else null. */
    private static String rows(GraphIndex index, String value) {
        int u = index.producerOf(value);
        if (u < 0 || !index.isOp(u, "Unsqueeze") || index.node(u).getInputCount() != 2) {
            return null;
        }
        return Arrays.equals(longs(index, index.node(u), 1), new long[] {1, 4})
                ? index.node(u).getInput(0)
                : null;
    }

    /** An int64 initializer input's values, else null. */
    private static long[] longs(GraphIndex index, NodeProto node, int input) {
        if (!Nodes.hasInput(node, input)) {
            return null;
        }
        TensorProto t = index.initializer(node.getInput(input));
        if (t == null
                || t.getDataType() != TensorProto.DataType.INT64_VALUE
                || t.getDataLocation() == TensorProto.DataLocation.EXTERNAL) {
            return null;
        }
        if (t.getInt64DataCount() > 0) {
            return t.getInt64DataList().stream().mapToLong(Long::longValue).toArray();
        }
        ByteBuffer raw = t.getRawData().asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
        long[] v = new long[raw.remaining() / 8];
        for (int i = 0; i < v.length; i++) {
            v[i] = raw.getLong();
        }
        return v;
    }
}
