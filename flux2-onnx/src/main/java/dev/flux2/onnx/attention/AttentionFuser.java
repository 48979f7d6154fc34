package dev.flux2.onnx.attention;

import ai.onnx.proto.OnnxMl.AttributeProto;
import ai.onnx.proto.OnnxMl.GraphProto;
import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnx.proto.OnnxMl.NodeProto;
import ai.onnx.proto.OnnxMl.OperatorSetIdProto;
import ai.onnx.proto.OnnxMl.TensorProto;
import ai.onnx.proto.OnnxMl.TensorShapeProto;
import ai.onnx.proto.OnnxMl.ValueInfoProto;
import ai.onnxruntime.platform.Fp16Conversions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;

/**
 * Replaces the attention subgraphs of a graph with ONNX Runtime's {@code com.microsoft.MultiHeadAttention}.
 *
 * <p>What is recognised, by structure only (never by node names): every {@code Softmax} over the last axis whose
 * input is {@code MatMul(q, kᵀ)} (optionally multiplied or divided by a scalar constant), whose output feeds, through
 * at most one {@code Cast}, the left side of one {@code MatMul(·, v)}, with no other use of the intermediate values.
 * {@code kᵀ} is a {@code Transpose} of the last two axes of k, or a tensor of known rank (the VAE's attention chunk
 * takes kᵀ as its input; it is transposed back). Scalar scales directly on q or k (a {@code Mul} by a scalar constant,
 * possibly seen through one {@code Slice}, as the seed export scales q and k by 128^-0.25 each before slicing head
 * groups) and on the scores are folded into the fused node's {@code scale}; anything else (RoPE, normalisation) stays
 * outside. Each Softmax that does not fit gets a reason.
 *
 * <p>The fused node: q [.., Sq, H], k [.., Skv, H], v [.., Skv, Hv] are cast to fp32 (when they are not), reshaped
 * to 3-D [batch·heads, S, H] and fed to {@code MultiHeadAttention} with {@code num_heads = 1} (so the head count
 * need not be known; the kernels parallelise over batch × heads alike), whose output is reshaped back to
 * [.., Sq, Hv] and cast to the original output's type. fp32 because ONNX Runtime's CPU kernel has only fp32, and
 * because the graphs compute scores and softmax in fp32 for accuracy (docs/fused-attention.md). The leading axes of
 * q, k and v are taken to be equal (no broadcasting), as in every export flux2-java reads.
 *
 * <p>{@link Layout#BSNH} feeds the fused node the layout of ONNX Runtime's WebGPU flash-attention shader instead:
 * q, k, v as [batch, S, heads·H] with the real head count, which is derived from the graph's structure (the constant
 * shapes and slices that form the heads, see {@link Layout#BSNH}), and the {@code present_key}/{@code present_value}
 * outputs that the flash path of older ONNX Runtime versions asks for. Where the head count cannot be derived the
 * block keeps the [batch·heads, S, H] form and the result says why.
 *
 * <p>Stateless; {@link #fuse} returns a new model.
 */
public final class AttentionFuser {
    private static final int FLOAT = TensorProto.DataType.FLOAT_VALUE;
    private static final int FLOAT16 = TensorProto.DataType.FLOAT16_VALUE;
    private static final int DOUBLE = TensorProto.DataType.DOUBLE_VALUE;
    private static final int INT64 = TensorProto.DataType.INT64_VALUE;
    private static final String MS = "com.microsoft";
    /** Element-wise operators of one input: their output has their input's shape (the static dimension walk). */
    private static final Set<String> SHAPE_PRESERVING = Set.of(
            "Cast",
            "Identity",
            "Neg",
            "Sqrt",
            "Reciprocal",
            "Sigmoid",
            "Relu",
            "Tanh",
            "Erf",
            "Exp",
            "Abs",
            "Softmax",
            "Gelu");

    private static final String PREFIX = "flux2_mha";
    /** Swaps axes 1 and 2 of a 4-D tensor: [B, N, S, H] ↔ [B, S, N, H]. */
    private static final long[] BNSH_BSNH = {0, 2, 1, 3};

    private AttentionFuser() {}

    /**
     * How q, k and v are laid out for the fused node. The backend uses {@link #BATCH_HEADS} on every provider: on the
     * WebGPU of ONNX Runtime 1.26 both layouts run the same flash-attention shader, measured alike
     * (docs/fused-attention.md §5.2).
     */
    public enum Layout {
        /**
         * 3-D [batch·heads, S, H] with {@code num_heads = 1}: needs no head count. ONNX Runtime's CPU kernel runs
         * MLAS's flash attention on it; its WebGPU kernel (1.26) its flash-attention shader.
         */
        BATCH_HEADS,
        /**
         * 3-D [batch, S, heads·H] with the real {@code num_heads} and the {@code present_key}/{@code present_value}
         * outputs: the form the flash path of older ONNX Runtime WebGPU kernels requires (batch 1, present outputs
         * requested). The head count is derived statically from q's graph (the constant {@code Slice} of a head
         * group, the constant {@code Reshape} shape that splits the heads, seen through {@code Transpose},
         * element-wise nodes and {@code Concat}) or from declared shapes; a 4-D q is required.
         */
        BSNH
    }

    /**
     * The element type the fused node computes in: q, k and v are cast to it before the node and its output back to
     * the attention output's type after it.
     */
    public enum Precision {
        /**
         * fp32: ONNX Runtime's CPU kernel has only fp32, and the graphs compute scores and softmax in fp32 for
         * accuracy (docs/fused-attention.md).
         */
        FP32,
        /** fp16: CUDA's fast form (docs/fused-attention.md §9). */
        FP16
    }

    /**
     * What the fusion did.
     *
     * @param candidates Softmax nodes looked at
     * @param fused attention blocks replaced
     * @param notFused one reason per Softmax left as it is
     * @param keptBatchHeads with {@link Layout#BSNH}: one reason per fused block that kept the [batch·heads, S, H]
     *     form because its head count could not be derived
     */
    public record Result(int candidates, int fused, List<String> notFused, List<String> keptBatchHeads) {
        /** Copies the lists. */
        public Result {
            notFused = List.copyOf(notFused);
            keptBatchHeads = List.copyOf(keptBatchHeads);
        }

        /**
         * A result in which no block was asked for another layout.
         *
         * @param candidates Softmax nodes looked at
         * @param fused attention blocks replaced
         * @param notFused one reason per Softmax left as it is
         */
        public Result(int candidates, int fused, List<String> notFused) {
            this(candidates, fused, notFused, List.of());
        }

        /** @return e.g. {@code 25 of 25 attention blocks fused} or with the reasons of the others */
        public String describe() {
            if (candidates == 0) {
                return "no attention (no Softmax)";
            }
            String s = fused + " of " + candidates + " softmax " + (candidates == 1 ? "node" : "nodes")
                    + " fused as attention";
            if (!keptBatchHeads.isEmpty()) {
                s += "; " + keptBatchHeads.size() + " in the [batch·heads, S, H] form: "
                        + String.join("; ", distinct(keptBatchHeads));
            }
            return notFused.isEmpty() ? s : s + "; not fused: " + String.join("; ", distinct(notFused));
        }

        private static List<String> distinct(List<String> reasons) {
            Map<String, Integer> counts = new java.util.LinkedHashMap<>();
            reasons.forEach(r -> counts.merge(r, 1, Integer::sum));
            List<String> out = new ArrayList<>();
            counts.forEach((r, n) -> out.add(n == 1 ? r : n + "× " + r));
            return out;
        }
    }

    /** The rewritten model and what was done. */
    public record Fusion(ModelProto model, Result result) {}

    /**
     * Looks for attention without changing anything.
     *
     * @param model a graph (external data not needed)
     * @return what {@link #fuse} would do
     */
    public static Result inspect(ModelProto model) {
        return new Run(model, Layout.BATCH_HEADS, Precision.FP32).match();
    }

    /**
     * @param model a graph (external data not needed)
     * @return the model with every recognised attention fused in the {@link Layout#BATCH_HEADS} form (the same model
     *     when none was)
     */
    public static Fusion fuse(ModelProto model) {
        return fuse(model, Layout.BATCH_HEADS);
    }

    /**
     * @param model a graph (external data not needed)
     * @param layout the fused node's layout
     * @return the model with every recognised attention fused (the same model when none was)
     */
    public static Fusion fuse(ModelProto model, Layout layout) {
        return fuse(model, layout, Precision.FP32);
    }

    /**
     * @param model a graph (external data not needed)
     * @param precision the element type the fused node computes in
     * @return the model with every recognised attention fused in the {@link Layout#BATCH_HEADS} form (the same model
     *     when none was)
     */
    public static Fusion fuse(ModelProto model, Precision precision) {
        return fuse(model, Layout.BATCH_HEADS, precision);
    }

    /**
     * @param model a graph (external data not needed)
     * @param layout the fused node's layout
     * @param precision the element type the fused node computes in
     * @return the model with every recognised attention fused (the same model when none was)
     */
    public static Fusion fuse(ModelProto model, Layout layout, Precision precision) {
        Run run = new Run(model, layout, precision);
        Result r = run.match();
        if (r.fused() == 0) {
            return new Fusion(model, r);
        }
        return new Fusion(run.rewrite(), r);
    }

    /** One match of the pattern. */
    private record Block(
            int softmax,
            int scoresMatMul,
            int scoreScaleNode,
            int castNode,
            int outMatMul,
            String q,
            Optional<NodeProto> qSlice,
            String k,
            Optional<NodeProto> kSlice,
            boolean kTransposed,
            int ktRank,
            String v,
            String output,
            int outputType,
            int qType,
            int kType,
            int vType,
            double scale,
            long heads) {}

    private static final class Run {
        private final ModelProto model;
        private final GraphProto graph;
        private final Map<String, Integer> producer = new HashMap<>();
        private final Map<String, Integer> uses = new HashMap<>();
        private final Set<String> graphOutputs = new HashSet<>();
        private final Map<String, TensorProto> initializers = new HashMap<>();
        private final Map<String, Integer> ranks = new HashMap<>();
        private final Map<String, List<Long>> declaredDims = new HashMap<>();
        private final ElementTypes types;
        private final Layout layout;
        private final int compute;
        private final List<Block> blocks = new ArrayList<>();
        private final List<String> keptBatchHeads = new ArrayList<>();

        Run(ModelProto model, Layout layout, Precision precision) {
            this.model = model;
            this.layout = layout;
            this.compute = precision == Precision.FP16 ? FLOAT16 : FLOAT;
            this.graph = model.getGraph();
            for (int i = 0; i < graph.getNodeCount(); i++) {
                NodeProto n = graph.getNode(i);
                for (String o : n.getOutputList()) {
                    producer.put(o, i);
                }
                for (String in : n.getInputList()) {
                    uses.merge(in, 1, Integer::sum);
                }
                // Subgraph inputs from the outer scope count as uses.
                for (AttributeProto a : n.getAttributeList()) {
                    if (a.hasG()) {
                        countSubgraphUses(a.getG());
                    }
                    a.getGraphsList().forEach(this::countSubgraphUses);
                }
            }
            graph.getOutputList().forEach(o -> graphOutputs.add(o.getName()));
            graph.getInitializerList().forEach(t -> initializers.put(t.getName(), t));
            for (ValueInfoProto v : graph.getInputList()) {
                rank(v);
            }
            graph.getValueInfoList().forEach(this::rank);
            this.types = ElementTypes.of(graph);
        }

        private void countSubgraphUses(GraphProto g) {
            for (NodeProto n : g.getNodeList()) {
                n.getInputList().forEach(in -> uses.merge(in, 1, Integer::sum));
            }
        }

        private void rank(ValueInfoProto v) {
            if (v.getType().hasTensorType() && v.getType().getTensorType().hasShape()) {
                TensorShapeProto s = v.getType().getTensorType().getShape();
                ranks.put(v.getName(), s.getDimCount());
                List<Long> dims = new ArrayList<>();
                s.getDimList().forEach(d -> dims.add(d.hasDimValue() && d.getDimValue() > 0 ? d.getDimValue() : -1L));
                declaredDims.put(v.getName(), dims);
            }
        }

        Result match() {
            int candidates = 0;
            List<String> reasons = new ArrayList<>();
            long opset = opset("");
            for (int i = 0; i < graph.getNodeCount(); i++) {
                NodeProto n = graph.getNode(i);
                if (!n.getOpType().equals("Softmax") || !standard(n)) {
                    continue;
                }
                candidates++;
                String why = opset < 13 ? "opset " + opset + " < 13" : matchAt(i);
                if (why != null) {
                    reasons.add(why);
                }
            }
            return new Result(candidates, blocks.size(), reasons, keptBatchHeads);
        }

        /** @return null when matched (and recorded), else why not */
        private String matchAt(int softmax) {
            NodeProto sm = graph.getNode(softmax);
            long axis = intAttr(sm, "axis", -1);
            Integer smRank = rankOf(sm.getInput(0));
            if (axis != -1 && (smRank == null || axis != smRank - 1)) {
                return "softmax over axis " + axis + ", not the last";
            }
            // Scores: MatMul, or MatMul times/divided by a scalar.
            int scoresNode = producerOf(sm.getInput(0));
            double scale = 1.0;
            int scoreScaleNode = -1;
            if (scoresNode >= 0 && isOp(scoresNode, "Mul", "Div")) {
                NodeProto m = graph.getNode(scoresNode);
                OptionalDouble c = scalar(m.getInput(1));
                int inner = producerOf(m.getInput(0));
                if (c.isEmpty() && m.getOpType().equals("Mul")) {
                    c = scalar(m.getInput(0));
                    inner = producerOf(m.getInput(1));
                }
                if (c.isEmpty() || c.getAsDouble() == 0) {
                    return "the softmax input is a " + m.getOpType() + " by a non-constant (a mask or bias)";
                }
                scale = m.getOpType().equals("Mul") ? c.getAsDouble() : 1.0 / c.getAsDouble();
                scoreScaleNode = scoresNode;
                scoresNode = inner;
                if (scoresNode >= 0 && !singleUse(graph.getNode(scoresNode).getOutput(0), 1)) {
                    return "the scores are used elsewhere too";
                }
            }
            if (scoresNode < 0 || !isOp(scoresNode, "MatMul")) {
                return "the softmax input is not q·kᵀ (a MatMul) but "
                        + (scoresNode < 0
                                ? "a graph input"
                                : graph.getNode(scoresNode).getOpType());
            }
            NodeProto scores = graph.getNode(scoresNode);
            if (!singleUse(scores.getOutput(0), 1) || !singleUse(sm.getInput(0), 1)) {
                return "the scores are used elsewhere too";
            }
            // Probabilities: Softmax → [Cast] → MatMul(·, v).
            String probs = sm.getOutput(0);
            int castNode = -1;
            int consumer = soleConsumer(probs);
            if (consumer >= 0 && isOp(consumer, "Cast")) {
                castNode = consumer;
                probs = graph.getNode(consumer).getOutput(0);
                consumer = soleConsumer(probs);
            }
            if (consumer < 0
                    || !isOp(consumer, "MatMul")
                    || !graph.getNode(consumer).getInput(0).equals(probs)) {
                return "the probabilities are not used by one MatMul with v alone";
            }
            NodeProto out = graph.getNode(consumer);
            // q and k, with scalar scales folded.
            Scaled q = unscale(scores.getInput(0));
            scale *= q.scale;
            String kt = scores.getInput(1);
            int ktNode = producerOf(kt);
            boolean transposed = false;
            Scaled k = new Scaled(kt, Optional.empty(), 1.0);
            int ktRank = -1;
            if (ktNode >= 0 && isOp(ktNode, "Transpose") && swapsLastTwo(graph.getNode(ktNode))) {
                transposed = true;
                k = unscale(graph.getNode(ktNode).getInput(0));
                scale *= k.scale;
            } else {
                Integer r = rankOf(kt);
                if (r == null || r < 2) {
                    return "kᵀ is neither a Transpose of the last two axes nor of known rank";
                }
                ktRank = r;
            }
            int qType = types.of(q.value);
            int kType = types.of(k.value);
            int vType = types.of(out.getInput(1));
            int outType = types.of(out.getOutput(0));
            if (!floating(qType) || !floating(kType) || !floating(vType) || !floating(outType)) {
                return "element types of q, k, v or the output not known to be floating point";
            }
            long heads = -1;
            if (layout == Layout.BSNH) {
                HeadCount hc = headCount(q.value, transposed ? k.value : null, out.getInput(1));
                if (hc.heads() > 0) {
                    heads = hc.heads();
                } else {
                    keptBatchHeads.add(hc.why());
                }
            }
            blocks.add(new Block(
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
                    scale,
                    heads));
            return null;
        }

        /** The head count of a block, or why it is not known. */
        private record HeadCount(long heads, String why) {}

        /**
         * The head count for the BSNH form: axis 1 of q [B, N, S, H], derived statically (declared shapes, constant
         * slices and reshapes, see {@link #staticDim}); k and v, where derivable, must agree.
         */
        private HeadCount headCount(String q, String k, String v) {
            int rank = staticRank(q, 0);
            if (rank != 4) {
                return new HeadCount(
                        -1, rank < 0 ? "the rank of q is not known" : "q is " + rank + "-D, not [B, N, S, H]");
            }
            long n = staticDim(q, 1, 0);
            if (n <= 0) {
                return new HeadCount(-1, "the head count (axis 1 of q) is not derivable from the graph");
            }
            for (String other : new String[] {k, v}) {
                if (other == null) {
                    continue;
                }
                long m = staticRank(other, 0) == 4 ? staticDim(other, 1, 0) : -1;
                if (m > 0 && m != n) {
                    return new HeadCount(-1, "q has " + n + " heads but k or v " + m);
                }
            }
            return new HeadCount(n, null);
        }

        /**
         * The size of one axis of a value, known without running the graph: from a declared shape, else through its
         * producer ({@code Transpose}, a {@code Reshape} to a constant shape, a {@code Slice} with constant bounds,
         * element-wise nodes with broadcasting, {@code Concat}).
         *
         * @return the size, or -1 when not derivable
         */
        private long staticDim(String value, int axis, int depth) {
            List<Long> declared = declaredDims.get(value);
            if (declared != null && axis < declared.size() && declared.get(axis) > 0) {
                return declared.get(axis);
            }
            TensorProto init = initializers.get(value);
            if (init != null) {
                return axis < init.getDimsCount() ? init.getDims(axis) : -1;
            }
            int p = producerOf(value);
            if (p < 0 || depth > 200 || !standard(graph.getNode(p))) {
                return -1;
            }
            NodeProto n = graph.getNode(p);
            if (SHAPE_PRESERVING.contains(n.getOpType())) {
                return staticDim(n.getInput(0), axis, depth + 1);
            }
            switch (n.getOpType()) {
                case "Transpose" -> {
                    List<Long> perm = perm(n);
                    return perm != null && axis < perm.size()
                            ? staticDim(n.getInput(0), perm.get(axis).intValue(), depth + 1)
                            : -1;
                }
                case "Reshape" -> {
                    long[] shape = n.getInputCount() > 1 ? constLongs(n.getInput(1)) : null;
                    if (shape == null || axis >= shape.length || intAttr(n, "allowzero", 0) != 0) {
                        return -1;
                    }
                    if (shape[axis] > 0) {
                        return shape[axis];
                    }
                    return shape[axis] == 0 ? staticDim(n.getInput(0), axis, depth + 1) : -1;
                }
                case "Slice" -> {
                    return sliceDim(n, axis, depth);
                }
                case "Concat" -> {
                    int rank = staticRank(value, depth + 1);
                    long a = intAttr(n, "axis", 0);
                    if (rank < 0) {
                        return -1;
                    }
                    if ((a < 0 ? a + rank : a) != axis) {
                        return staticDim(n.getInput(0), axis, depth + 1);
                    }
                    long sum = 0;
                    for (String in : n.getInputList()) {
                        long d = staticDim(in, axis, depth + 1);
                        if (d < 0) {
                            return -1;
                        }
                        sum += d;
                    }
                    return sum;
                }
                case "Mul", "Add", "Sub", "Div", "Pow", "Max", "Min" -> {
                    // Broadcasting: the axis's size is the largest over the inputs (each aligned from the right).
                    int rank = staticRank(value, depth + 1);
                    for (String in : n.getInputList()) {
                        int r = staticRank(in, depth + 1);
                        int a = axis - (rank - r);
                        if (r < 0 || rank < 0 || a < 0) {
                            continue;
                        }
                        long d = staticDim(in, a, depth + 1);
                        if (d > 1) {
                            return d;
                        }
                    }
                    // Only sizes of 1 (or none) were found: a head count of 1 is not worth the other layout.
                    return -1;
                }
                default -> {
                    return -1;
                }
            }
        }

        private long sliceDim(NodeProto n, int axis, int depth) {
            if (n.getInputCount() < 3) {
                return -1;
            }
            long[] starts = constLongs(n.getInput(1));
            long[] ends = constLongs(n.getInput(2));
            long[] axes = n.getInputCount() > 3 && !n.getInput(3).isEmpty() ? constLongs(n.getInput(3)) : null;
            long[] steps = n.getInputCount() > 4 && !n.getInput(4).isEmpty() ? constLongs(n.getInput(4)) : null;
            if (starts == null || ends == null || starts.length != ends.length) {
                return -1;
            }
            int rank = staticRank(n.getInput(0), depth + 1);
            for (int i = 0; i < starts.length; i++) {
                long a = axes == null ? i : axes[i];
                if (a < 0) {
                    if (rank < 0) {
                        return -1;
                    }
                    a += rank;
                }
                if (a != axis) {
                    continue;
                }
                if (steps != null && steps[i] != 1) {
                    return -1;
                }
                long in = staticDim(n.getInput(0), axis, depth + 1);
                long start = starts[i];
                long end = ends[i];
                if (start < 0 || end < 0) {
                    if (in < 0) {
                        return -1;
                    }
                    start = start < 0 ? start + in : start;
                    end = end < 0 ? end + in : end;
                }
                if (in > 0) {
                    start = Math.min(start, in);
                    end = Math.min(end, in);
                } else if (end > Integer.MAX_VALUE) {
                    return -1;
                }
                return end > start ? end - start : -1;
            }
            return staticDim(n.getInput(0), axis, depth + 1);
        }

        /** The rank of a value, known without running the graph, or -1. */
        private int staticRank(String value, int depth) {
            Integer declared = ranks.get(value);
            if (declared != null) {
                return declared;
            }
            TensorProto init = initializers.get(value);
            if (init != null) {
                return init.getDimsCount();
            }
            int p = producerOf(value);
            if (p < 0 || depth > 200 || !standard(graph.getNode(p))) {
                return -1;
            }
            NodeProto n = graph.getNode(p);
            if (SHAPE_PRESERVING.contains(n.getOpType())) {
                return staticRank(n.getInput(0), depth + 1);
            }
            switch (n.getOpType()) {
                case "Transpose" -> {
                    List<Long> perm = perm(n);
                    return perm != null ? perm.size() : -1;
                }
                case "Reshape" -> {
                    long[] shape = n.getInputCount() > 1 ? constLongs(n.getInput(1)) : null;
                    return shape != null ? shape.length : -1;
                }
                case "Slice", "Concat" -> {
                    return staticRank(n.getInput(0), depth + 1);
                }
                case "Mul", "Add", "Sub", "Div", "Pow", "Max", "Min", "MatMul" -> {
                    int max = -1;
                    for (String in : n.getInputList()) {
                        int r = staticRank(in, depth + 1);
                        if (r < 0) {
                            return -1;
                        }
                        max = Math.max(max, r);
                    }
                    return max;
                }
                default -> {
                    return -1;
                }
            }
        }

        private static List<Long> perm(NodeProto transpose) {
            for (AttributeProto a : transpose.getAttributeList()) {
                if (a.getName().equals("perm")) {
                    return a.getIntsList();
                }
            }
            return null;
        }

        /** An int64 constant (an initializer or a Constant node) of at most a few elements, or null. */
        private long[] constLongs(String value) {
            TensorProto t = initializers.get(value);
            if (t == null) {
                int p = producerOf(value);
                if (p >= 0 && isOp(p, "Constant")) {
                    for (AttributeProto a : graph.getNode(p).getAttributeList()) {
                        if (a.hasT()) {
                            t = a.getT();
                        } else if (a.getName().equals("value_ints")) {
                            return a.getIntsList().stream()
                                    .mapToLong(Long::longValue)
                                    .toArray();
                        } else if (a.getName().equals("value_int")) {
                            return new long[] {a.getI()};
                        }
                    }
                }
            }
            if (t == null
                    || t.getDataLocation() == TensorProto.DataLocation.EXTERNAL
                    || (t.getDataType() != INT64 && t.getDataType() != TensorProto.DataType.INT32_VALUE)) {
                return null;
            }
            if (t.getInt64DataCount() > 0) {
                return t.getInt64DataList().stream().mapToLong(Long::longValue).toArray();
            }
            if (t.getInt32DataCount() > 0) {
                return t.getInt32DataList().stream()
                        .mapToLong(Integer::longValue)
                        .toArray();
            }
            ByteBuffer raw = t.getRawData().asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
            boolean wide = t.getDataType() == INT64;
            long[] out = new long[raw.remaining() / (wide ? 8 : 4)];
            for (int i = 0; i < out.length; i++) {
                out[i] = wide ? raw.getLong() : raw.getInt();
            }
            return out;
        }

        private record Scaled(String value, Optional<NodeProto> slice, double scale) {}

        /** x·c → (x, c); Slice(x·c) → (Slice(x), c); anything else as it is. */
        private Scaled unscale(String value) {
            int p = producerOf(value);
            if (p >= 0 && isOp(p, "Slice")) {
                NodeProto slice = graph.getNode(p);
                int inner = producerOf(slice.getInput(0));
                if (inner >= 0 && isOp(inner, "Mul")) {
                    Optional<Scaled> s = scalarMul(graph.getNode(inner));
                    if (s.isPresent()) {
                        NodeProto.Builder b = slice.toBuilder().setInput(0, s.get().value);
                        return new Scaled(value, Optional.of(b.build()), s.get().scale);
                    }
                }
                return new Scaled(value, Optional.empty(), 1.0);
            }
            if (p >= 0 && isOp(p, "Mul")) {
                return scalarMul(graph.getNode(p)).orElse(new Scaled(value, Optional.empty(), 1.0));
            }
            return new Scaled(value, Optional.empty(), 1.0);
        }

        private Optional<Scaled> scalarMul(NodeProto mul) {
            OptionalDouble c = scalar(mul.getInput(1));
            String x = mul.getInput(0);
            if (c.isEmpty()) {
                c = scalar(mul.getInput(0));
                x = mul.getInput(1);
            }
            if (c.isEmpty() || c.getAsDouble() == 0) {
                return Optional.empty();
            }
            return Optional.of(new Scaled(x, Optional.empty(), c.getAsDouble()));
        }

        ModelProto rewrite() {
            Set<Integer> removed = new HashSet<>();
            Map<Integer, List<NodeProto>> before = new HashMap<>();
            Set<String> taken = new HashSet<>();
            graph.getNodeList().forEach(n -> {
                taken.addAll(n.getOutputList());
                taken.addAll(n.getInputList());
                taken.add(n.getName());
            });
            graph.getInitializerList().forEach(t -> taken.add(t.getName()));
            graph.getInputList().forEach(v -> taken.add(v.getName()));
            Names names = new Names(taken);
            String minusOne = names.fresh(PREFIX + "_minus1");
            String minusTwo = names.fresh(PREFIX + "_minus2");
            String zero = names.fresh(PREFIX + "_zero");
            String end = names.fresh(PREFIX + "_end");
            List<TensorProto> constants = new ArrayList<>(
                    List.of(longs(minusOne, -1), longs(minusTwo, -2), longs(zero, 0), longs(end, Long.MAX_VALUE)));
            Map<String, String> shapes = new HashMap<>();
            int index = 0;
            for (Block blk : blocks) {
                String p = PREFIX + "_" + index++;
                List<NodeProto> nodes = new ArrayList<>();
                String q = blk.q;
                if (blk.qSlice.isPresent()) {
                    q = emit(nodes, names, p + "_q_slice", blk.qSlice.get());
                }
                String k = blk.k;
                if (blk.kSlice.isPresent()) {
                    k = emit(nodes, names, p + "_k_slice", blk.kSlice.get());
                }
                if (!blk.kTransposed) {
                    long[] perm = new long[blk.ktRank];
                    for (int i = 0; i < perm.length; i++) {
                        perm[i] = i;
                    }
                    perm[perm.length - 1] = perm.length - 2;
                    perm[perm.length - 2] = perm.length - 1;
                    k = node(nodes, names, p + "_k", "Transpose", List.of(k), List.of(ints("perm", perm)));
                }
                q = toCompute(nodes, names, p + "_q", q, blk.qType);
                k = toCompute(nodes, names, p + "_k", k, blk.kType);
                String v = toCompute(nodes, names, p + "_v", blk.v, blk.vType);
                if (blk.heads > 0) {
                    bsnh(nodes, names, p, blk, q, k, v, constants, shapes);
                } else {
                    batchHeads(nodes, names, p, blk, q, k, v, minusOne, minusTwo, zero, end);
                }
                before.put(blk.outMatMul, nodes);
                removed.add(blk.softmax);
                removed.add(blk.scoresMatMul);
                removed.add(blk.outMatMul);
                if (blk.castNode >= 0) {
                    removed.add(blk.castNode);
                }
                if (blk.scoreScaleNode >= 0) {
                    removed.add(blk.scoreScaleNode);
                }
            }
            List<NodeProto> nodes = new ArrayList<>();
            for (int i = 0; i < graph.getNodeCount(); i++) {
                List<NodeProto> inserted = before.get(i);
                if (inserted != null) {
                    nodes.addAll(inserted);
                }
                if (!removed.contains(i)) {
                    nodes.add(graph.getNode(i));
                }
            }
            nodes = withoutDeadNodes(nodes, removedInputs(removed));
            Set<String> live = new HashSet<>();
            nodes.forEach(n -> {
                live.addAll(n.getOutputList());
                live.addAll(n.getInputList());
            });
            // Initializers that only the removed nodes read (the scale constants) go too: ONNX Runtime warns about
            // each unused one. Those the source already left unused stay, as everything else the source has.
            List<TensorProto> inits = new ArrayList<>(graph.getInitializerList());
            inits.removeIf(t -> uses.containsKey(t.getName())
                    && !live.contains(t.getName())
                    && !graphOutputs.contains(t.getName())
                    && graph.getInputList().stream().noneMatch(v -> v.getName().equals(t.getName())));
            GraphProto.Builder g = graph.toBuilder()
                    .clearNode()
                    .addAllNode(nodes)
                    .clearInitializer()
                    .addAllInitializer(inits)
                    .addAllInitializer(constants);
            List<ValueInfoProto> infos = new ArrayList<>(g.getValueInfoList());
            infos.removeIf(v -> !live.contains(v.getName()));
            g.clearValueInfo().addAllValueInfo(infos);
            ModelProto.Builder m = model.toBuilder().setGraph(g);
            if (opset(MS) < 0) {
                m.addOpsetImport(OperatorSetIdProto.newBuilder().setDomain(MS).setVersion(1));
            }
            return m.build();
        }

        /** Today's form: [batch·heads, S, H] with one head. */
        private void batchHeads(
                List<NodeProto> nodes,
                Names names,
                String p,
                Block blk,
                String q,
                String k,
                String v,
                String minusOne,
                String minusTwo,
                String zero,
                String end) {
            String qShape = node(nodes, names, p + "_q_shape", "Shape", List.of(q), List.of());
            String vShape = node(nodes, names, p + "_v_shape", "Shape", List.of(v), List.of());
            String q3 = flatten(nodes, names, p + "_q", q, qShape, minusOne, minusTwo, end, zero);
            String k3 = flatten(
                    nodes,
                    names,
                    p + "_k",
                    k,
                    node(nodes, names, p + "_k_shape", "Shape", List.of(k), List.of()),
                    minusOne,
                    minusTwo,
                    end,
                    zero);
            String v3 = flatten(nodes, names, p + "_v", v, vShape, minusOne, minusTwo, end, zero);
            String mha = names.fresh(p + "_out3");
            nodes.add(NodeProto.newBuilder()
                    .setName(names.fresh(p))
                    .setOpType("MultiHeadAttention")
                    .setDomain(MS)
                    .addInput(q3)
                    .addInput(k3)
                    .addInput(v3)
                    .addOutput(mha)
                    .addAttribute(AttributeProto.newBuilder()
                            .setName("num_heads")
                            .setType(AttributeProto.AttributeType.INT)
                            .setI(1))
                    .addAttribute(AttributeProto.newBuilder()
                            .setName("scale")
                            .setType(AttributeProto.AttributeType.FLOAT)
                            .setF((float) blk.scale))
                    .build());
            String lead = node(nodes, names, p + "_lead", "Slice", List.of(qShape, zero, minusOne, zero), List.of());
            String last = node(nodes, names, p + "_last", "Slice", List.of(vShape, minusOne, end, zero), List.of());
            String shape = node(nodes, names, p + "_shape", "Concat", List.of(lead, last), List.of(axis0()));
            boolean cast = blk.outputType != compute;
            String reshaped = cast ? names.fresh(p + "_out") : blk.output;
            nodes.add(plain(names.fresh(p + "_reshape"), "Reshape", List.of(mha, shape), reshaped, List.of()));
            if (cast) {
                nodes.add(plain(
                        names.fresh(p + "_cast_out"),
                        "Cast",
                        List.of(reshaped),
                        blk.output,
                        List.of(intAttr("to", blk.outputType))));
            }
        }

        /**
         * The flash-attention form: q, k, v [B, N, S, H] → Transpose → [B, S, N, H] → Reshape → [B, S, N·H];
         * {@code MultiHeadAttention} with the real head count and the present outputs (which nothing reads: ONNX
         * Runtime 1.26's WebGPU kernel takes its flash path only when they are requested); its output [B, S, N·Hv]
         * back to [B, N, S, Hv].
         */
        private void bsnh(
                List<NodeProto> nodes,
                Names names,
                String p,
                Block blk,
                String q,
                String k,
                String v,
                List<TensorProto> constants,
                Map<String, String> shapes) {
            String merge = shape(names, constants, shapes, 0, 0, -1);
            String q3 = toBsnh(nodes, names, p + "_q", q, merge);
            String k3 = toBsnh(nodes, names, p + "_k", k, merge);
            String v3 = toBsnh(nodes, names, p + "_v", v, merge);
            String mha = names.fresh(p + "_out3");
            nodes.add(NodeProto.newBuilder()
                    .setName(names.fresh(p))
                    .setOpType("MultiHeadAttention")
                    .setDomain(MS)
                    .addInput(q3)
                    .addInput(k3)
                    .addInput(v3)
                    .addOutput(mha)
                    .addOutput(names.fresh(p + "_present_key"))
                    .addOutput(names.fresh(p + "_present_value"))
                    .addAttribute(AttributeProto.newBuilder()
                            .setName("num_heads")
                            .setType(AttributeProto.AttributeType.INT)
                            .setI(blk.heads))
                    .addAttribute(AttributeProto.newBuilder()
                            .setName("scale")
                            .setType(AttributeProto.AttributeType.FLOAT)
                            .setF((float) blk.scale))
                    .build());
            String split = shape(names, constants, shapes, 0, 0, blk.heads, -1);
            String out4 = node(nodes, names, p + "_out4", "Reshape", List.of(mha, split), List.of());
            boolean cast = blk.outputType != compute;
            String heads = cast ? names.fresh(p + "_out") : blk.output;
            nodes.add(plain(
                    names.fresh(p + "_heads"), "Transpose", List.of(out4), heads, List.of(ints("perm", BNSH_BSNH))));
            if (cast) {
                nodes.add(plain(
                        names.fresh(p + "_cast_out"),
                        "Cast",
                        List.of(heads),
                        blk.output,
                        List.of(intAttr("to", blk.outputType))));
            }
        }

        private static String toBsnh(List<NodeProto> nodes, Names names, String p, String x, String merge) {
            String t = node(nodes, names, p + "_bsnh", "Transpose", List.of(x), List.of(ints("perm", BNSH_BSNH)));
            return node(nodes, names, p + "_3d", "Reshape", List.of(t, merge), List.of());
        }

        /** One int64 shape constant per distinct value. */
        private static String shape(
                Names names, List<TensorProto> constants, Map<String, String> shapes, long... dims) {
            String key = java.util.Arrays.toString(dims);
            return shapes.computeIfAbsent(key, kk -> {
                String name = names.fresh(PREFIX + "_shape");
                TensorProto.Builder t = TensorProto.newBuilder()
                        .setName(name)
                        .setDataType(INT64)
                        .addDims(dims.length);
                for (long d : dims) {
                    t.addInt64Data(d);
                }
                constants.add(t.build());
                return name;
            });
        }

        private Set<String> removedInputs(Set<Integer> removed) {
            Set<String> s = new HashSet<>();
            removed.forEach(i -> s.addAll(graph.getNode(i).getInputList()));
            return s;
        }

        /**
         * Removes the nodes that fed only removed nodes (the scaling Mul, the Transpose of k), and what fed only
         * those, leaving every other node, dead or not, as the source has it.
         */
        private List<NodeProto> withoutDeadNodes(List<NodeProto> nodes, Set<String> candidates) {
            Set<String> pending = new HashSet<>(candidates);
            while (!pending.isEmpty()) {
                Map<String, Integer> used = new HashMap<>();
                for (NodeProto n : nodes) {
                    n.getInputList().forEach(in -> used.merge(in, 1, Integer::sum));
                    for (AttributeProto a : n.getAttributeList()) {
                        if (a.hasG()) {
                            a.getG()
                                    .getNodeList()
                                    .forEach(s -> s.getInputList().forEach(in -> used.merge(in, 1, Integer::sum)));
                        }
                    }
                }
                Set<String> next = new HashSet<>();
                List<NodeProto> kept = new ArrayList<>();
                for (NodeProto n : nodes) {
                    boolean candidate = n.getOutputList().stream().anyMatch(pending::contains);
                    boolean dead =
                            n.getOutputList().stream().noneMatch(o -> used.containsKey(o) || graphOutputs.contains(o));
                    if (candidate && dead) {
                        next.addAll(n.getInputList());
                    } else {
                        kept.add(n);
                    }
                }
                nodes = kept;
                pending = next;
            }
            return nodes;
        }

        private String flatten(
                List<NodeProto> nodes,
                Names names,
                String p,
                String x,
                String shape,
                String minusOne,
                String minusTwo,
                String end,
                String zero) {
            String tail = node(nodes, names, p + "_tail", "Slice", List.of(shape, minusTwo, end, zero), List.of());
            String to = node(nodes, names, p + "_shape3", "Concat", List.of(minusOne, tail), List.of(axis0()));
            return node(nodes, names, p + "_3d", "Reshape", List.of(x, to), List.of());
        }

        /** x cast to the fused node's element type, when it is of another. */
        private String toCompute(List<NodeProto> nodes, Names names, String p, String x, int type) {
            if (type == compute) {
                return x;
            }
            return node(
                    nodes,
                    names,
                    p + (compute == FLOAT ? "_fp32" : "_fp16"),
                    "Cast",
                    List.of(x),
                    List.of(intAttr("to", compute)));
        }

        private static String emit(List<NodeProto> nodes, Names names, String p, NodeProto template) {
            String out = names.fresh(p);
            nodes.add(template.toBuilder()
                    .setName(names.fresh(p))
                    .setOutput(0, out)
                    .build());
            return out;
        }

        private static String node(
                List<NodeProto> nodes, Names names, String p, String op, List<String> in, List<AttributeProto> attrs) {
            String out = names.fresh(p);
            nodes.add(plain(names.fresh(p + "_node"), op, in, out, attrs));
            return out;
        }

        private static NodeProto plain(String name, String op, List<String> in, String out, List<AttributeProto> a) {
            return NodeProto.newBuilder()
                    .setName(name)
                    .setOpType(op)
                    .addAllInput(in)
                    .addOutput(out)
                    .addAllAttribute(a)
                    .build();
        }

        private static AttributeProto axis0() {
            return intAttr("axis", 0);
        }

        private static AttributeProto intAttr(String name, long value) {
            return AttributeProto.newBuilder()
                    .setName(name)
                    .setType(AttributeProto.AttributeType.INT)
                    .setI(value)
                    .build();
        }

        private static AttributeProto ints(String name, long[] values) {
            AttributeProto.Builder b =
                    AttributeProto.newBuilder().setName(name).setType(AttributeProto.AttributeType.INTS);
            for (long v : values) {
                b.addInts(v);
            }
            return b.build();
        }

        private static TensorProto longs(String name, long value) {
            return TensorProto.newBuilder()
                    .setName(name)
                    .setDataType(INT64)
                    .addDims(1)
                    .addInt64Data(value)
                    .build();
        }

        private long opset(String domain) {
            for (OperatorSetIdProto o : model.getOpsetImportList()) {
                String d = o.getDomain().equals("ai.onnx") ? "" : o.getDomain();
                if (d.equals(domain)) {
                    return o.getVersion();
                }
            }
            return -1;
        }

        private static boolean standard(NodeProto n) {
            return n.getDomain().isEmpty() || n.getDomain().equals("ai.onnx");
        }

        private boolean isOp(int node, String... ops) {
            NodeProto n = graph.getNode(node);
            if (!standard(n)) {
                return false;
            }
            for (String op : ops) {
                if (n.getOpType().equals(op)) {
                    return true;
                }
            }
            return false;
        }

        /** The rank from a shape the graph declares, seen through casts (the chunk graph casts its inputs). */
        private Integer rankOf(String value) {
            for (int depth = 0; depth < 8; depth++) {
                Integer r = ranks.get(value);
                if (r != null) {
                    return r;
                }
                int p = producerOf(value);
                if (p < 0 || !isOp(p, "Cast", "Identity")) {
                    return null;
                }
                value = graph.getNode(p).getInput(0);
            }
            return null;
        }

        private int producerOf(String value) {
            return producer.getOrDefault(value, -1);
        }

        private boolean singleUse(String value, int expected) {
            if (value.isEmpty()) {
                return true;
            }
            return uses.getOrDefault(value, 0) == expected && !graphOutputs.contains(value);
        }

        /** @return the one node that reads the value (and nothing else does, nor is it a graph output), or -1 */
        private int soleConsumer(String value) {
            if (!singleUse(value, 1)) {
                return -1;
            }
            for (int i = 0; i < graph.getNodeCount(); i++) {
                if (graph.getNode(i).getInputList().contains(value)) {
                    return i;
                }
            }
            return -1;
        }

        private static boolean swapsLastTwo(NodeProto transpose) {
            List<Long> perm = null;
            for (AttributeProto a : transpose.getAttributeList()) {
                if (a.getName().equals("perm")) {
                    perm = a.getIntsList();
                }
            }
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

        private static long intAttr(NodeProto n, String name, long defaultValue) {
            for (AttributeProto a : n.getAttributeList()) {
                if (a.getName().equals(name)) {
                    return a.getI();
                }
            }
            return defaultValue;
        }

        private static boolean floating(int type) {
            return type == FLOAT || type == FLOAT16 || type == DOUBLE || type == TensorProto.DataType.BFLOAT16_VALUE;
        }

        /** A one-element constant (an initializer or a Constant node's tensor), as a double. */
        private OptionalDouble scalar(String value) {
            TensorProto t = initializers.get(value);
            if (t == null) {
                int p = producerOf(value);
                if (p >= 0 && isOp(p, "Constant")) {
                    for (AttributeProto a : graph.getNode(p).getAttributeList()) {
                        if (a.hasT()) {
                            t = a.getT();
                        } else if (a.getName().equals("value_float")) {
                            return OptionalDouble.of(a.getF());
                        }
                    }
                }
            }
            if (t == null || t.getDataLocation() == TensorProto.DataLocation.EXTERNAL) {
                return OptionalDouble.empty();
            }
            long n = 1;
            for (long d : t.getDimsList()) {
                n *= d;
            }
            if (n != 1) {
                return OptionalDouble.empty();
            }
            ByteBuffer raw = t.getRawData().asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
            switch (t.getDataType()) {
                case FLOAT:
                    return t.getFloatDataCount() == 1
                            ? OptionalDouble.of(t.getFloatData(0))
                            : raw.remaining() == 4 ? OptionalDouble.of(raw.getFloat()) : OptionalDouble.empty();
                case DOUBLE:
                    return t.getDoubleDataCount() == 1
                            ? OptionalDouble.of(t.getDoubleData(0))
                            : raw.remaining() == 8 ? OptionalDouble.of(raw.getDouble()) : OptionalDouble.empty();
                case FLOAT16:
                    if (t.getInt32DataCount() == 1) {
                        return OptionalDouble.of(Fp16Conversions.fp16ToFloat((short) t.getInt32Data(0)));
                    }
                    return raw.remaining() == 2
                            ? OptionalDouble.of(Fp16Conversions.fp16ToFloat(raw.getShort()))
                            : OptionalDouble.empty();
                default:
                    return OptionalDouble.empty();
            }
        }
    }

    /** Fresh value and node names that collide with nothing in the graph. */
    private static final class Names {
        private final Set<String> taken;

        Names(Set<String> taken) {
            this.taken = taken;
        }

        String fresh(String base) {
            String name = base;
            for (int i = 2; taken.contains(name); i++) {
                name = base + "_" + i;
            }
            taken.add(name);
            return name;
        }
    }
}
