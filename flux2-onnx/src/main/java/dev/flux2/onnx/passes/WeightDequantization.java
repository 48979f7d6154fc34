package dev.flux2.onnx.passes;

import ai.onnx.proto.OnnxMl.GraphProto;
import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnx.proto.OnnxMl.NodeProto;
import ai.onnx.proto.OnnxMl.OperatorSetIdProto;
import ai.onnx.proto.OnnxMl.TensorProto;
import dev.flux2.onnx.graph.Attributes;
import dev.flux2.onnx.graph.ElementTypes;
import dev.flux2.onnx.graph.GraphIndex;
import dev.flux2.onnx.graph.Nodes;
import dev.flux2.onnx.graph.Opsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Replaces 4-bit {@code com.microsoft.MatMulNBits} weight products by an in-graph dequantization and a plain
 * {@code MatMul}: {@code DequantizeLinear} (opset 21, blocked {@code uint4} along K, the node's own zero points) gives
 * the weight [N, K] in the activation type, {@code Transpose} makes it [K, N], {@code MatMul} multiplies, and an
 * {@code Add} adds the node's bias if it has one. The weights' values do not change: the {@code DequantizeLinear}
 * computes {@code (q − zero_point) · scale} in the scales' type, as {@code MatMulNBits} does on WebGPU, and its
 * inputs are the node's own initializers re-typed in place (the packed codes [N, K/block, block/2] uint8 are the
 * same bytes as uint4 [N, K], the scales [N·K/block] the same as [N, K/block], the packed zero points the same as
 * uint4 [N, K/block] when K/block is even), so external data keeps its location, offset and length and no weight
 * byte is written. Why: ONNX Runtime 1.26's WebGPU {@code MatMulNBits} runs a generic shader at block 16, 4× slower
 * than an fp16 {@code MatMul} (docs/fused-attention.md §8).
 *
 * <p>ONNX Runtime does not constant-fold {@code DequantizeLinear} by default (it keeps QDQ graphs intact), so the
 * weight is dequantized on the device in every run and only the packed form stays resident; its QDQ fusion back to
 * {@code MatMulNBits} looks for {@code DequantizeLinear → MatMul}, which the {@code Transpose} between them is not.
 *
 * <p>The graph's default-domain opset is raised to 21 (IR version to at least 10, for uint4) when it is lower;
 * the one operator change between opset 17 and 21 that a valid graph can depend on, the {@code axes} of the
 * {@code Reduce*} operators becoming an input at opset 18, is rewritten with it. A graph with subgraphs, or with a
 * default-domain operator this class does not know to be unchanged up to opset 21, is left as it is. Nodes are
 * recognised by their operator and attributes, never by names. Backend option {@code weights}. Immutable.
 */
public final class WeightDequantization implements GraphPass {
    /** The pass's id. */
    public static final String ID = "dequantize-weights";

    /** Raised whenever the pass writes anything different for the same input. */
    static final int VERSION = 1;

    private static final String PREFIX = "flux2_dq";
    private static final int DQ_OPSET = 21;
    private static final int UINT8 = ElementTypes.UINT8;
    private static final int UINT4 = ElementTypes.UINT4;
    private static final int FLOAT16 = ElementTypes.FLOAT16;
    private static final int FLOAT = ElementTypes.FLOAT;

    /** The element type a dequantized weight product is computed in. */
    public enum ProductPrecision {
        /**
         * fp32: fp16 activations and scales cast to fp32, the product cast back: the packed graph's accuracy on
         * WebGPU (docs/fused-attention.md §8).
         */
        FP32,
        /**
         * fp16: an fp16 {@code MatMul}; faster, but WebGPU's fp16 {@code MatMul} adds ≈ 1e-2 relative error to a
         * 25-block step (docs/fused-attention.md §8).
         */
        FP16
    }

    private final ProductPrecision precision;

    private WeightDequantization(ProductPrecision precision) {
        this.precision = Objects.requireNonNull(precision, "precision");
    }

    /**
     * @param precision what the products compute in
     * @return the pass, on the block sizes of {@link #SLOW_BLOCK_SIZES}
     */
    public static WeightDequantization of(ProductPrecision precision) {
        return new WeightDequantization(precision);
    }

    /** @return what the products compute in */
    public ProductPrecision precision() {
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
        return precision.name().toLowerCase(Locale.ROOT);
    }

    @Override
    public PassOutcome apply(ModelProto model, PassContext context) {
        Rewrite r = dequantize(model, SLOW_BLOCK_SIZES, precision == ProductPrecision.FP32);
        return new PassOutcome(
                r.model(),
                r.result().candidates(),
                r.result().rewritten(),
                r.result().notRewritten(),
                r.result().describe());
    }

    /**
     * The block sizes whose WebGPU {@code MatMulNBits} is slower than the dequantized form: 16, the seed's (ONNX
     * Runtime 1.26 takes its tiled shaders only at block 32; measured in docs/fused-attention.md §8).
     */
    public static final Set<Integer> SLOW_BLOCK_SIZES = Set.of(16);

    /**
     * What the rewrite did.
     *
     * @param candidates 4-bit {@code MatMulNBits} nodes with one of the requested block sizes
     * @param rewritten how many were replaced
     * @param notRewritten why the others were not (one line each, first few)
     * @param opsetRaised whether the default-domain opset was raised to 21
     */
    public record Result(int candidates, int rewritten, List<String> notRewritten, boolean opsetRaised) {
        /** Copies the list. */
        public Result {
            notRewritten = List.copyOf(notRewritten);
        }

        /** @return one line for logs and {@code flux2 info} */
        public String describe() {
            String s = rewritten + " of " + candidates + " MatMulNBits weight products dequantized in the graph";
            if (!notRewritten.isEmpty()) {
                s += "; not: " + String.join("; ", notRewritten.subList(0, Math.min(3, notRewritten.size())));
            }
            return s;
        }
    }

    /**
     * The rewritten model and what was done.
     *
     * @param model the model (the input itself when nothing was rewritten)
     * @param result what was done
     */
    public record Rewrite(ModelProto model, Result result) {}

    /**
     * Rewrites every 4-bit {@code MatMulNBits} node whose {@code block_size} is in {@code blockSizes}.
     *
     * @param model the model (not modified)
     * @param blockSizes the block sizes to rewrite (e.g. {@code Set.of(16)})
     * @return the rewrite
     */
    public static Rewrite dequantize(ModelProto model, Set<Integer> blockSizes) {
        return dequantize(model, blockSizes, false);
    }

    /**
     * Like {@link #dequantize(ModelProto, Set)}, optionally computing the product in fp32: the fp16 scales are cast
     * to fp32 (so the weight is {@code (q − zero_point) · scale} exactly, in fp32), the activations cast to fp32
     * before the {@code MatMul} and its output cast back to fp16. For providers whose fp16 {@code MatMul}
     * accumulates in fp16 (WebGPU, as measured in docs/fused-attention.md §8).
     *
     * @param model the model (not modified)
     * @param blockSizes the block sizes to rewrite
     * @param fp32 whether an fp16 product is computed in fp32
     * @return the rewrite
     */
    public static Rewrite dequantize(ModelProto model, Set<Integer> blockSizes, boolean fp32) {
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(blockSizes, "blockSizes");
        GraphProto graph = model.getGraph();
        List<Integer> candidates = new ArrayList<>();
        for (int i = 0; i < graph.getNodeCount(); i++) {
            NodeProto n = graph.getNode(i);
            if (isMatMulNBits(n)
                    && Attributes.intValue(n, "bits", 4) == 4
                    && blockSizes.contains((int) Attributes.intValue(n, "block_size", 0))) {
                candidates.add(i);
            }
        }
        if (candidates.isEmpty()) {
            return new Rewrite(model, new Result(0, 0, List.of(), false));
        }
        OptionalLong imported = Opsets.version(model, Opsets.DEFAULT);
        if (imported.isEmpty()) {
            return new Rewrite(
                    model, new Result(candidates.size(), 0, List.of("the graph imports no ONNX opset"), false));
        }
        int opset = (int) imported.getAsLong();
        String blocker = opset < DQ_OPSET ? OpsetRaise.blocker(graph, opset) : null;
        if (blocker != null) {
            return new Rewrite(model, new Result(candidates.size(), 0, List.of(blocker), false));
        }
        Map<String, TensorProto> initializers = new LinkedHashMap<>();
        for (TensorProto t : graph.getInitializerList()) {
            initializers.put(t.getName(), t);
        }
        GraphIndex graphIndex = GraphIndex.of(graph);

        Map<Integer, List<NodeProto>> replacements = new HashMap<>();
        Map<String, TensorProto> retyped = new HashMap<>();
        List<String> notRewritten = new ArrayList<>();
        Set<String> names = new HashSet<>();
        graph.getNodeList().forEach(n -> names.addAll(n.getOutputList()));
        initializers.keySet().forEach(names::add);
        int index = 0;
        for (int i : candidates) {
            NodeProto n = graph.getNode(i);
            String reason = reasonNot(n, initializers, graphIndex);
            if (reason != null) {
                notRewritten.add(describe(n) + ": " + reason);
                continue;
            }
            long k = Attributes.intValue(n, "K", 0);
            long nOut = Attributes.intValue(n, "N", 0);
            long block = Attributes.intValue(n, "block_size", 0);
            long blocks = k / block;
            String p = PREFIX + index++ + "/";
            String codes = p + "codes";
            String scales = p + "scales";
            String zeros = p + "zero_points";
            for (String name : List.of(
                    codes, scales, zeros, p + "weight", p + "weight_t", p + "product", p + "x32", p + "scales32")) {
                if (names.contains(name)) {
                    notRewritten.add(describe(n) + ": the name " + name + " is taken");
                    reason = "taken";
                }
            }
            if (reason != null) {
                continue;
            }
            retyped.put(n.getInput(1), retype(initializers.get(n.getInput(1)), codes, UINT4, nOut, k));
            TensorProto scaleTensor = initializers.get(n.getInput(2));
            retyped.put(n.getInput(2), retype(scaleTensor, scales, scaleTensor.getDataType(), nOut, blocks));
            List<NodeProto> nodes = new ArrayList<>();
            boolean widen = fp32 && scaleTensor.getDataType() == FLOAT16;
            if (widen) {
                nodes.add(Nodes.cast(p + "CastScales", scales, p + "scales32", FLOAT));
                nodes.add(Nodes.cast(p + "CastInput", n.getInput(0), p + "x32", FLOAT));
            }
            List<String> dqInputs = new ArrayList<>(List.of(codes, widen ? p + "scales32" : scales));
            if (Nodes.hasInput(n, 3)) {
                retyped.put(n.getInput(3), retype(initializers.get(n.getInput(3)), zeros, UINT4, nOut, blocks));
                dqInputs.add(zeros);
            } else {
                // MatMulNBits' default zero point is 2^(bits−1) = 8; DequantizeLinear's is 0
                retyped.put(zeros, constantZeroPoints(zeros, nOut, blocks));
                dqInputs.add(zeros);
            }
            nodes.add(NodeProto.newBuilder()
                    .setOpType("DequantizeLinear")
                    .setName(p + "DequantizeLinear")
                    .addAllInput(dqInputs)
                    .addOutput(p + "weight")
                    .addAttribute(Attributes.ofInt("axis", 1))
                    .addAttribute(Attributes.ofInt("block_size", block))
                    .build());
            nodes.add(NodeProto.newBuilder()
                    .setOpType("Transpose")
                    .setName(p + "Transpose")
                    .addInput(p + "weight")
                    .addOutput(p + "weight_t")
                    .addAttribute(Attributes.ofInts("perm", 1, 0))
                    .build());
            boolean bias = Nodes.hasInput(n, 5);
            String product = bias ? p + "product" : n.getOutput(0);
            nodes.add(NodeProto.newBuilder()
                    .setOpType("MatMul")
                    .setName(p + "MatMul")
                    .addInput(widen ? p + "x32" : n.getInput(0))
                    .addInput(p + "weight_t")
                    .addOutput(widen ? p + "product32" : product)
                    .build());
            if (widen) {
                nodes.add(Nodes.cast(p + "CastOutput", p + "product32", product, FLOAT16));
            }
            if (bias) {
                nodes.add(NodeProto.newBuilder()
                        .setOpType("Add")
                        .setName(p + "Add")
                        .addInput(p + "product")
                        .addInput(n.getInput(5))
                        .addOutput(n.getOutput(0))
                        .build());
            }
            replacements.put(i, nodes);
        }
        if (replacements.isEmpty()) {
            return new Rewrite(model, new Result(candidates.size(), 0, notRewritten, false));
        }
        GraphProto.Builder g = graph.toBuilder().clearNode().clearInitializer().clearValueInfo();
        graph.getValueInfoList().stream()
                .filter(v -> !retyped.containsKey(v.getName()))
                .forEach(g::addValueInfo);
        for (TensorProto t : graph.getInitializerList()) {
            g.addInitializer(retyped.getOrDefault(t.getName(), t));
        }
        retyped.forEach((source, t) -> {
            if (!initializers.containsKey(source)) {
                g.addInitializer(t); // the constant zero points of a node without them
            }
        });
        boolean raise = opset < DQ_OPSET;
        int reduces = 0;
        for (int i = 0; i < graph.getNodeCount(); i++) {
            List<NodeProto> r = replacements.get(i);
            if (r != null) {
                g.addAllNode(r);
            } else if (raise
                    && OpsetRaise.REDUCE_AXES_18.contains(graph.getNode(i).getOpType())
                    && Nodes.standard(graph.getNode(i))) {
                g.addAllNode(OpsetRaise.axesAsInput(graph.getNode(i), PREFIX + "_axes" + reduces++));
            } else {
                g.addNode(graph.getNode(i));
            }
        }
        ModelProto.Builder m = model.toBuilder().setGraph(g);
        if (raise) {
            m.clearOpsetImport();
            for (OperatorSetIdProto o : model.getOpsetImportList()) {
                m.addOpsetImport(
                        o.getDomain().isEmpty() || o.getDomain().equals("ai.onnx")
                                ? o.toBuilder().setVersion(DQ_OPSET).build()
                                : o);
            }
        }
        if (m.getIrVersion() < 10) {
            m.setIrVersion(10);
        }
        return new Rewrite(m.build(), new Result(candidates.size(), replacements.size(), notRewritten, raise));
    }

    private static String reasonNot(NodeProto n, Map<String, TensorProto> inits, GraphIndex index) {
        long k = Attributes.intValue(n, "K", 0);
        long nOut = Attributes.intValue(n, "N", 0);
        long block = Attributes.intValue(n, "block_size", 0);
        if (k <= 0 || nOut <= 0 || block <= 0 || k % block != 0) {
            return "K " + k + " is not a positive multiple of block_size " + block;
        }
        if (Nodes.hasInput(n, 4)) {
            return "it has g_idx";
        }
        if (n.getOutputCount() != 1) {
            return "it has " + n.getOutputCount() + " outputs";
        }
        TensorProto codes = inits.get(n.getInput(1));
        TensorProto scales = inits.get(n.getInput(2));
        if (codes == null || scales == null) {
            return "its weight or scales are not initializers";
        }
        if (codes.getDataType() != UINT8 || product(codes) * 2 != k * nOut) {
            return "its weight is not uint8 with N·K/2 bytes";
        }
        if ((scales.getDataType() != FLOAT16 && scales.getDataType() != FLOAT)
                || product(scales) != nOut * (k / block)) {
            return "its scales are not fp16/fp32 [N·K/block]";
        }
        if (Nodes.hasInput(n, 3)) {
            TensorProto zp = inits.get(n.getInput(3));
            if (zp == null || zp.getDataType() != UINT8) {
                return "its zero points are not a uint8 initializer";
            }
            if ((k / block) % 2 != 0) {
                return "K/block is odd, so its packed zero points are padded per column";
            }
            if (product(zp) * 2 != nOut * (k / block)) {
                return "its zero points are not N·K/block/2 bytes";
            }
        }
        for (int i = 1; i <= 3 && i < n.getInputCount(); i++) {
            String in = n.getInput(i);
            // a graph output is a use; an initializer also listed as a graph input (old IR) could be fed
            int uses = in.isEmpty()
                    ? 0
                    : index.uses(in) + (index.isGraphOutput(in) ? 1 : 0) + (index.isGraphInput(in) ? 1 : 0);
            if (uses > 1) {
                return "its initializer " + in + " has other uses";
            }
        }
        return null;
    }

    /** The same bytes (raw or external) under a new name, type and shape. */
    private static TensorProto retype(TensorProto t, String name, int type, long... dims) {
        TensorProto.Builder b = t.toBuilder().setName(name).setDataType(type).clearDims();
        for (long d : dims) {
            b.addDims(d);
        }
        if (t.getInt32DataCount() > 0) {
            throw new IllegalArgumentException("tensor " + t.getName() + " stores its values in int32_data");
        }
        return b.build();
    }

    /** uint4 [N, blocks] of 8 (two per byte): MatMulNBits' zero point when the node has none. */
    private static TensorProto constantZeroPoints(String name, long n, long blocks) {
        byte[] bytes = new byte[Math.toIntExact((n * blocks + 1) / 2)];
        java.util.Arrays.fill(bytes, (byte) 0x88);
        return TensorProto.newBuilder()
                .setName(name)
                .setDataType(UINT4)
                .addDims(n)
                .addDims(blocks)
                .setRawData(com.google.protobuf.ByteString.copyFrom(bytes))
                .build();
    }

    private static long product(TensorProto t) {
        long p = 1;
        for (long d : t.getDimsList()) {
            p *= d;
        }
        return p;
    }

    private static boolean isMatMulNBits(NodeProto n) {
        return n.getOpType().equals("MatMulNBits") && n.getDomain().equals(Nodes.MICROSOFT);
    }

    private static String describe(NodeProto n) {
        return "MatMulNBits " + (n.getName().isEmpty() ? n.getOutput(0) : n.getName());
    }
}
