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
 * <p>Stateless; {@link #fuse} returns a new model.
 */
public final class AttentionFuser {
    private static final int FLOAT = TensorProto.DataType.FLOAT_VALUE;
    private static final int FLOAT16 = TensorProto.DataType.FLOAT16_VALUE;
    private static final int DOUBLE = TensorProto.DataType.DOUBLE_VALUE;
    private static final int INT64 = TensorProto.DataType.INT64_VALUE;
    private static final String MS = "com.microsoft";
    private static final String PREFIX = "flux2_mha";

    private AttentionFuser() {}

    /**
     * What the fusion did.
     *
     * @param candidates Softmax nodes looked at
     * @param fused attention blocks replaced
     * @param notFused one reason per Softmax left as it is
     */
    public record Result(int candidates, int fused, List<String> notFused) {
        /** Copies the list. */
        public Result {
            notFused = List.copyOf(notFused);
        }

        /** @return e.g. {@code 25 of 25 attention blocks fused} or with the reasons of the others */
        public String describe() {
            if (candidates == 0) {
                return "no attention (no Softmax)";
            }
            String s = fused + " of " + candidates + " softmax " + (candidates == 1 ? "node" : "nodes")
                    + " fused as attention";
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
        return new Run(model).match();
    }

    /**
     * @param model a graph (external data not needed)
     * @return the model with every recognised attention fused (the same model when none was)
     */
    public static Fusion fuse(ModelProto model) {
        Run run = new Run(model);
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
            double scale) {}

    private static final class Run {
        private final ModelProto model;
        private final GraphProto graph;
        private final Map<String, Integer> producer = new HashMap<>();
        private final Map<String, Integer> uses = new HashMap<>();
        private final Set<String> graphOutputs = new HashSet<>();
        private final Map<String, TensorProto> initializers = new HashMap<>();
        private final Map<String, Integer> ranks = new HashMap<>();
        private final ElementTypes types;
        private final List<Block> blocks = new ArrayList<>();

        Run(ModelProto model) {
            this.model = model;
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
            return new Result(candidates, blocks.size(), reasons);
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
                    scale));
            return null;
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
            List<TensorProto> constants =
                    List.of(longs(minusOne, -1), longs(minusTwo, -2), longs(zero, 0), longs(end, Long.MAX_VALUE));
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
                q = toFloat(nodes, names, p + "_q", q, blk.qType);
                k = toFloat(nodes, names, p + "_k", k, blk.kType);
                String v = toFloat(nodes, names, p + "_v", blk.v, blk.vType);
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
                String lead =
                        node(nodes, names, p + "_lead", "Slice", List.of(qShape, zero, minusOne, zero), List.of());
                String last = node(nodes, names, p + "_last", "Slice", List.of(vShape, minusOne, end, zero), List.of());
                String shape = node(nodes, names, p + "_shape", "Concat", List.of(lead, last), List.of(axis0()));
                boolean cast = blk.outputType != FLOAT;
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

        private String toFloat(List<NodeProto> nodes, Names names, String p, String x, int type) {
            if (type == FLOAT) {
                return x;
            }
            return node(nodes, names, p + "_fp32", "Cast", List.of(x), List.of(intAttr("to", FLOAT)));
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
