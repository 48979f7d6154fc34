package dev.flux2.onnx.passes.lora;

import ai.onnx.proto.OnnxMl.NodeProto;
import ai.onnx.proto.OnnxMl.TensorProto;
import dev.flux2.api.ModelLoadException;
import dev.flux2.onnx.graph.GraphIndex;
import dev.flux2.onnx.graph.Nodes;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Names the linear layers of a FLUX.2 transformer graph with diffusers' module paths, from the graph's structure
 * only (node and initializer names are never read: the real exports name them {@code /model/MatMul_12}). The rules
 * (docs/pipeline-reference.md §16):
 *
 * <ul>
 *   <li>a linear layer is a {@code MatMul}/{@code Gemm} with a constant weight or a {@code MatMulNBits};
 *   <li>for every linear, its <em>upstream</em>: the linears its input depends on without passing through another
 *       linear (attention, norms, residual additions and RoPE are passed through);
 *   <li>attentions in graph order: a {@code Softmax} between two activation products (Q·Kᵀ, P·V), or an
 *       {@code Attention}/{@code MultiHeadAttention} node; Q, K, V by their place there;
 *   <li>an attention whose Q comes from two linears joined by a sequence {@code Concat} is a double block's: the
 *       concat's first input is the text stream (diffusers concatenates {@code [encoder, hidden]}), so to_q/add_q_proj
 *       (and k, v) are told apart by the concat input they reach; one linear behind Q, K and V of a stream, through
 *       a {@code Split}/{@code Slice} of its columns, is q/k/v fused; one linear behind Q without a stream concat is
 *       a single block's to_qkv_mlp_proj;
 *   <li>to_out/to_add_out: the two linears whose upstream is exactly the block's q/k/v linears, told apart by the
 *       stream of the feed-forward they feed; ff.linear_in: the first linear downstream of the stream's to_out;
 *       linear_out: the linear whose upstream is linear_in alone; a single block's to_out: the linear whose upstream
 *       is its to_qkv_mlp_proj alone;
 *   <li>x_embedder/context_embedder: the linears without upstream behind block 0's image/text q; the timestep
 *       embedder: the other linear without upstream (linear_1) and the one fed by it alone (linear_2); the
 *       modulations: the linears fed by linear_2 alone, by which layers they feed; proj_out: the linear the output
 *       depends on; norm_out.linear: the modulation behind proj_out.
 * </ul>
 *
 * Every rule expects exactly one match; anything else is refused naming the layer, what was expected and what was
 * found.
 */
public final class KleinGraphLayers {
    private static final int MIXED = -2;
    private static final Set<String> RESHAPES =
            Set.of("Reshape", "Transpose", "Flatten", "Unsqueeze", "Squeeze", "Expand", "Tile");

    /**
     * How a value depends on a linear: through which stream-concat input, which of its columns (a split or slice of
     * the product's last axis before any reshape), and whether it was reshaped since (a later split is of heads or
     * of RoPE's pairs, not of the linear's columns).
     */
    private record Origin(int stream, int from, int to, boolean part, boolean shaped) {
        Origin(int stream, int from, int to, boolean part) {
            this(stream, from, to, part, false);
        }

        Origin reshaped() {
            return new Origin(stream, from, to, part, true);
        }

        Origin inStream(int s) {
            return new Origin(s, from, to, part, shaped);
        }
    }

    private final GraphIndex index;
    private final List<GraphLinear> linears;
    private final Map<Integer, Integer> linearOfNode = new HashMap<>();
    private final Map<String, Map<Integer, Origin>> sources = new HashMap<>();
    private final Map<String, AdaptedLinear> byTarget = new LinkedHashMap<>();
    private final Map<Integer, List<AdaptedLinear.Part>> parts = new TreeMap<>();

    private KleinGraphLayers(GraphIndex index) {
        this.index = index;
        this.linears = LinearNodes.of(index);
        for (int i = 0; i < linears.size(); i++) {
            linearOfNode.put(linears.get(i).node(), i);
        }
    }

    /**
     * @param index the transformer graph
     * @param graphName the graph's file or role, named in refusals
     * @return its adaptable linears, in graph order, each with the diffusers layers it computes
     * @throws ModelLoadException when a layer cannot be identified unambiguously
     */
    public static List<AdaptedLinear> match(GraphIndex index, String graphName) {
        KleinGraphLayers m = new KleinGraphLayers(index);
        try {
            m.trace();
            m.classify();
        } catch (IllegalStateException e) {
            throw new ModelLoadException("cannot apply LoRA to " + graphName + ": " + e.getMessage());
        }
        List<AdaptedLinear> out = new ArrayList<>();
        m.parts.forEach((i, p) -> out.add(new AdaptedLinear(m.linears.get(i), p)));
        return out;
    }

    // ---- tracing: which linears every value depends on --------------------------------------------------------

    private void trace() {
        for (int n = 0; n < index.graph().getNodeCount(); n++) {
            NodeProto node = index.node(n);
            Integer lin = linearOfNode.get(n);
            if (lin != null) {
                sources.put(
                        node.getOutput(0),
                        Map.of(lin, new Origin(-1, 0, linears.get(lin).outFeatures(), false)));
                continue;
            }
            String op = Nodes.standard(node) ? node.getOpType() : node.getDomain() + ":" + node.getOpType();
            switch (op) {
                case "Shape", "Size", "ConstantOfShape", "Range", "NonZero", "Constant" -> {}
                case "Concat" -> concat(node);
                case "Split" -> split(node);
                case "Slice" -> slice(node);
                default -> {
                    Map<Integer, Origin> s = new HashMap<>();
                    List<String> data = dataInputs(node);
                    for (String in : data) {
                        merge(s, sources.getOrDefault(in, Map.of()));
                    }
                    if (RESHAPES.contains(op)) {
                        s.replaceAll((k, o) -> o.reshaped());
                    }
                    for (String out : node.getOutputList()) {
                        sources.put(out, s);
                    }
                }
            }
        }
    }

    private static List<String> dataInputs(NodeProto node) {
        return switch (node.getOpType()) {
            case "Reshape",
                    "Expand",
                    "Tile",
                    "Gather",
                    "Unsqueeze",
                    "Squeeze",
                    "Pad",
                    "Resize",
                    "Flatten",
                    "Transpose",
                    "Cast",
                    "Identity" -> node.getInputCount() == 0 ? List.of() : List.of(node.getInput(0));
            default -> node.getInputList();
        };
    }

    private static void merge(Map<Integer, Origin> into, Map<Integer, Origin> from) {
        from.forEach((k, v) -> into.merge(k, v, (a, b) -> a.equals(b) ? a : new Origin(MIXED, 0, 0, true)));
    }

    /** A concat of inputs from disjoint sets of linears joins streams: input i is stream i. */
    private void concat(NodeProto node) {
        List<Map<Integer, Origin>> ins = new ArrayList<>();
        Set<Integer> seen = new java.util.HashSet<>();
        boolean disjoint = node.getInputCount() >= 2;
        for (String in : node.getInputList()) {
            Map<Integer, Origin> s = sources.getOrDefault(in, Map.of());
            ins.add(s);
            if (s.isEmpty()) {
                disjoint = false;
            }
            for (Integer k : s.keySet()) {
                if (!seen.add(k)) {
                    disjoint = false;
                }
            }
        }
        Map<Integer, Origin> out = new HashMap<>();
        for (int i = 0; i < ins.size(); i++) {
            if (disjoint) {
                int stream = i;
                Map<Integer, Origin> tagged = new HashMap<>();
                ins.get(i).forEach((k, o) -> tagged.put(k, o.stream() == -1 ? o.inStream(stream) : o));
                merge(out, tagged);
            } else {
                merge(out, ins.get(i));
            }
        }
        sources.put(node.getOutput(0), out);
    }

    /** A split of a linear's last axis: each output is that range of the linear's columns. */
    private void split(NodeProto node) {
        Map<Integer, Origin> in = sources.getOrDefault(node.getInput(0), Map.of());
        long axis = LinearNodes.attr(node, "axis", 0);
        int n = node.getOutputCount();
        long[] sizes = node.getInputCount() > 1 && !node.getInput(1).isEmpty() ? ints(node.getInput(1)) : null;
        for (int j = 0; j < n; j++) {
            int jj = j;
            Map<Integer, Origin> s = new HashMap<>();
            in.forEach((k, o) -> {
                int width = o.to() - o.from();
                if (o.part() || o.shaped() || o.stream() == MIXED || !lastAxis(node.getInput(0), axis)) {
                    s.put(k, o);
                    return;
                }
                long from = 0;
                long size;
                if (sizes != null && sizes.length == n) {
                    for (int t = 0; t < jj; t++) {
                        from += sizes[t];
                    }
                    size = sizes[jj];
                } else {
                    size = width / n;
                    from = size * jj;
                }
                s.put(k, new Origin(o.stream(), o.from() + (int) from, o.from() + (int) (from + size), true, false));
            });
            sources.put(node.getOutput(j), s);
        }
    }

    private void slice(NodeProto node) {
        Map<Integer, Origin> in = sources.getOrDefault(node.getInput(0), Map.of());
        long[] starts = node.getInputCount() > 1 ? ints(node.getInput(1)) : null;
        long[] ends = node.getInputCount() > 2 ? ints(node.getInput(2)) : null;
        long[] axes = node.getInputCount() > 3 && !node.getInput(3).isEmpty() ? ints(node.getInput(3)) : null;
        Map<Integer, Origin> s = new HashMap<>();
        in.forEach((k, o) -> {
            boolean columns = starts != null
                    && ends != null
                    && starts.length == 1
                    && ends.length == 1
                    && axes != null
                    && axes.length == 1
                    && lastAxis(node.getInput(0), axes[0]);
            if (!columns || o.part() || o.shaped() || o.stream() == MIXED) {
                s.put(k, o);
                return;
            }
            int width = o.to() - o.from();
            long a = Math.max(0, starts[0] < 0 ? width + starts[0] : Math.min(starts[0], width));
            long b = Math.min(width, ends[0] < 0 ? width + ends[0] : ends[0]);
            s.put(k, new Origin(o.stream(), o.from() + (int) a, o.from() + (int) b, true, false));
        });
        sources.put(node.getOutput(0), s);
    }

    private boolean lastAxis(String value, long axis) {
        if (axis == -1) {
            return true;
        }
        Integer rank = index.declaredRank(value);
        return rank != null && axis == rank - 1;
    }

    /** An int64 constant (initializer or Constant node), or null. */
    private long[] ints(String value) {
        TensorProto t = index.initializer(value);
        if (t == null) {
            int p = index.producerOf(value);
            if (p >= 0 && index.isOp(p, "Constant")) {
                for (var a : index.node(p).getAttributeList()) {
                    if (a.hasT()) {
                        t = a.getT();
                    }
                }
            }
        }
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

    private Set<Integer> upstream(int linear) {
        return sources.getOrDefault(linears.get(linear).input(), Map.of()).keySet();
    }

    private final Map<Integer, Set<Integer>> behind = new HashMap<>();

    /** Every linear the linear depends on, through other linears too. */
    private Set<Integer> behind(int linear) {
        Set<Integer> known = behind.get(linear);
        if (known != null) {
            return known;
        }
        Set<Integer> all = new java.util.HashSet<>();
        for (int u : upstream(linear)) {
            all.add(u);
            all.addAll(behind(u));
        }
        behind.put(linear, all);
        return all;
    }

    // ---- classification ------------------------------------------------------------------------------------------

    /** Q, K, V of one attention, in graph order. */
    private record Attention(String q, String k, String v) {}

    private List<Attention> attentions() {
        List<Attention> out = new ArrayList<>();
        for (int n = 0; n < index.graph().getNodeCount(); n++) {
            NodeProto node = index.node(n);
            boolean fused = (Nodes.isOp(node, "Attention")
                            || (node.getDomain().equals(Nodes.MICROSOFT)
                                    && node.getOpType().equals("MultiHeadAttention")))
                    && node.getInputCount() >= 3;
            if (fused) {
                out.add(new Attention(node.getInput(0), node.getInput(1), node.getInput(2)));
            } else if (Nodes.isOp(node, "Softmax")) {
                NodeProto scores = walkBack(node.getInput(0));
                NodeProto pv = walkForward(node.getOutput(0));
                if (scores != null && pv != null) {
                    out.add(new Attention(scores.getInput(0), scores.getInput(1), pv.getInput(1)));
                }
            }
        }
        return out;
    }

    /** The Q·Kᵀ product behind a softmax, through scale, mask and casts. */
    private NodeProto walkBack(String value) {
        for (int d = 0; d < 6; d++) {
            int p = index.producerOf(value);
            if (p < 0) {
                return null;
            }
            if (index.isOp(p, "MatMul") && !linearOfNode.containsKey(p)) {
                return index.node(p);
            }
            if (!index.isOp(p, "Mul", "Div", "Add", "Cast", "Where")) {
                return null;
            }
            value = index.node(p).getInput(0);
        }
        return null;
    }

    /** The P·V product after a softmax, through casts. */
    private NodeProto walkForward(String value) {
        for (int d = 0; d < 4; d++) {
            int c = index.soleConsumer(value);
            if (c < 0) {
                return null;
            }
            NodeProto node = index.node(c);
            if (index.isOp(c, "MatMul") && node.getInput(0).equals(value)) {
                return node;
            }
            if (!index.isOp(c, "Cast", "Identity", "Dropout")) {
                return null;
            }
            value = node.getOutput(0);
        }
        return null;
    }

    private void classify() {
        List<Attention> attentions = attentions();
        if (attentions.isEmpty()) {
            throw new IllegalStateException("no attention found (expected a Softmax between two activation products,"
                    + " or an Attention/MultiHeadAttention node); is this the transformer?");
        }
        int doubles = 0;
        int singles = 0;
        Integer imgQ0 = null;
        Integer txtQ0 = null;
        Integer single0 = null;
        List<Set<Integer>> doubleInputs = new ArrayList<>();
        Set<Set<Integer>> seen = new java.util.HashSet<>();
        for (Attention a : attentions) {
            Map<Integer, Origin> q = sources.getOrDefault(a.q(), Map.of());
            if (!seen.add(Set.copyOf(q.keySet()))) {
                continue; // another group of heads of an attention already counted (the export splits heads)
            }
            boolean streams = q.size() == 2
                    && q.values().stream().anyMatch(o -> o.stream() == 0)
                    && q.values().stream().anyMatch(o -> o.stream() == 1);
            if (streams) {
                String block = "transformer_blocks." + doubles;
                Set<Integer> inputs = new LinkedHashSet<>();
                Map<Integer, List<AdaptedLinear.Part>> blockParts = new LinkedHashMap<>();
                String[][] names = {{"add_q_proj", "add_k_proj", "add_v_proj"}, {"to_q", "to_k", "to_v"}};
                String[] roles = {a.q(), a.k(), a.v()};
                for (int stream = 0; stream < 2; stream++) {
                    for (int r = 0; r < 3; r++) {
                        String target = block + ".attn." + names[stream][r];
                        int lin = one(
                                target,
                                stream == 0 ? "text stream (first concat input)" : "image stream",
                                sources.getOrDefault(roles[r], Map.of()),
                                stream);
                        Origin o = sources.get(roles[r]).get(lin);
                        GraphLinear g = linears.get(lin);
                        int from = o.part() ? o.from() : 0;
                        int to = o.part() ? o.to() : g.outFeatures();
                        blockParts
                                .computeIfAbsent(lin, k -> new ArrayList<>())
                                .add(new AdaptedLinear.Part(target, from, to));
                        inputs.add(lin);
                        if (doubles == 0 && r == 0) {
                            if (stream == 0) {
                                txtQ0 = lin;
                            } else {
                                imgQ0 = lin;
                            }
                        }
                    }
                }
                blockParts.forEach((lin, p) -> {
                    if (p.size() > 1) {
                        checkFused(lin, p);
                    }
                    put(lin, p);
                });
                doubleInputs.add(inputs);
                doubles++;
            } else {
                String target = "single_transformer_blocks." + singles + ".attn.to_qkv_mlp_proj";
                Set<Integer> behind = new LinkedHashSet<>(q.keySet());
                behind.addAll(sources.getOrDefault(a.k(), Map.of()).keySet());
                behind.addAll(sources.getOrDefault(a.v(), Map.of()).keySet());
                if (behind.size() != 1) {
                    throw new IllegalStateException(target + ": expected one linear behind the attention's Q, K and V"
                            + " (or two joined by a text/image concat in a double block), found " + behind.size());
                }
                int lin = behind.iterator().next();
                put(lin, target);
                if (singles == 0) {
                    single0 = lin;
                }
                int qkv = lin;
                put(
                        unique(
                                "single_transformer_blocks." + singles + ".attn.to_out",
                                "upstream = {to_qkv_mlp_proj}",
                                l -> upstream(l).equals(Set.of(qkv))),
                        "single_transformer_blocks." + singles + ".attn.to_out");
                singles++;
            }
        }
        if (imgQ0 == null) {
            throw new IllegalStateException("no double-stream block found (expected an attention whose Q joins"
                    + " a text and an image projection by a concat)");
        }
        int img = imgQ0;
        int txt = txtQ0;
        int xEmb = unique(
                "x_embedder",
                "the linear without upstream behind transformer_blocks.0.attn.to_q",
                l -> upstream(l).isEmpty() && upstream(img).contains(l));
        int cEmb = unique(
                "context_embedder",
                "the linear without upstream behind transformer_blocks.0.attn.add_q_proj",
                l -> upstream(l).isEmpty() && upstream(txt).contains(l));
        put(xEmb, "x_embedder");
        put(cEmb, "context_embedder");
        for (int b = 0; b < doubleInputs.size(); b++) {
            Set<Integer> in = doubleInputs.get(b);
            String block = "transformer_blocks." + b;
            List<Integer> outs = all(l -> upstream(l).equals(in));
            if (outs.size() != 2) {
                throw new IllegalStateException(block + ".attn.to_out.0/to_add_out: expected 2 linears fed by the"
                        + " block's attention alone, found " + outs.size());
            }
            for (int o : outs) {
                int ffIn = firstDownstream(block + " feed-forward after an attention output", o);
                boolean image = streamHas(ffIn, xEmb);
                boolean text = streamHas(ffIn, cEmb);
                if (image == text) {
                    throw new IllegalStateException(block + ": the feed-forward after an attention output leads back"
                            + " to " + (image ? "both embedders" : "neither embedder") + "; expected one stream");
                }
                String ff = block + (image ? ".ff" : ".ff_context");
                put(o, block + (image ? ".attn.to_out.0" : ".attn.to_add_out"));
                put(ffIn, ff + ".linear_in");
                int ffIn2 = ffIn;
                put(
                        unique(
                                ff + ".linear_out",
                                "upstream = {linear_in}",
                                l -> upstream(l).equals(Set.of(ffIn2))),
                        ff + ".linear_out");
            }
        }
        int t1 = unique(
                "time_guidance_embed.timestep_embedder.linear_1",
                "a linear without upstream that alone feeds another",
                l -> upstream(l).isEmpty()
                        && l != xEmb
                        && l != cEmb
                        && !all(m -> upstream(m).equals(Set.of(l))).isEmpty());
        put(t1, "time_guidance_embed.timestep_embedder.linear_1");
        int t2 = unique(
                "time_guidance_embed.timestep_embedder.linear_2",
                "upstream = {linear_1}",
                l -> upstream(l).equals(Set.of(t1)));
        put(t2, "time_guidance_embed.timestep_embedder.linear_2");
        int proj = unique(
                "proj_out",
                "the linear the graph's output depends on",
                l -> index.graph().getOutputList().stream()
                        .anyMatch(
                                o -> sources.getOrDefault(o.getName(), Map.of()).containsKey(l)));
        put(proj, "proj_out");
        // The gates of every block multiply the residual stream, so the modulations behind a later layer include
        // the earlier ones: they are identified in this order, each excluding those already named.
        int s0 = single0 == null ? -1 : single0;
        String[][] mods = {
            {"double_stream_modulation_img.linear", "transformer_blocks.0.attn.to_q"},
            {"double_stream_modulation_txt.linear", "transformer_blocks.0.attn.add_q_proj"},
            {"single_stream_modulation.linear", "single_transformer_blocks.0.attn.to_qkv_mlp_proj"},
            {"norm_out.linear", "proj_out"}
        };
        int[] fed = {img, txt, s0, proj};
        for (int i = 0; i < mods.length; i++) {
            if (fed[i] < 0) {
                continue;
            }
            int f = fed[i];
            put(
                    unique(
                            mods[i][0],
                            "fed by linear_2 alone, behind " + mods[i][1],
                            l -> upstream(l).equals(Set.of(t2)) && upstream(f).contains(l) && !parts.containsKey(l)),
                    mods[i][0]);
        }
        for (int l = 0; l < linears.size(); l++) {
            if (!parts.containsKey(l)) {
                GraphLinear g = linears.get(l);
                throw new IllegalStateException("a linear layer (" + g.inFeatures() + " → " + g.outFeatures()
                        + ", node " + g.node() + ") matches no layer of the FLUX.2 transformer");
            }
        }
    }

    /** Whether the stream of a feed-forward leads back (through residuals) to an embedder. */
    private boolean streamHas(int ffIn, int embedder) {
        return upstream(ffIn).contains(embedder);
    }

    /** The first linear downstream of {@code from}: fed by it, and fed by no other linear fed by it. */
    private int firstDownstream(String what, int from) {
        List<Integer> fedBy = all(l -> upstream(l).contains(from));
        List<Integer> first = new ArrayList<>();
        for (int l : fedBy) {
            if (fedBy.stream().noneMatch(m -> behind(l).contains(m))) {
                first.add(l);
            }
        }
        if (first.size() != 1) {
            throw new IllegalStateException(what + ": expected one first linear downstream, found " + first.size());
        }
        return first.get(0);
    }

    private int one(String target, String expected, Map<Integer, Origin> s, int stream) {
        List<Integer> found = new ArrayList<>();
        s.forEach((k, o) -> {
            if (o.stream() == stream) {
                found.add(k);
            }
        });
        if (found.size() != 1) {
            throw new IllegalStateException(
                    target + ": expected one linear of the " + expected + ", found " + found.size());
        }
        return found.get(0);
    }

    private void checkFused(int lin, List<AdaptedLinear.Part> p) {
        GraphLinear g = linears.get(lin);
        int covered = 0;
        for (AdaptedLinear.Part part : p) {
            covered += part.to() - part.from();
        }
        boolean overlap =
                p.stream().anyMatch(a -> p.stream().anyMatch(b -> a != b && a.from() < b.to() && b.from() < a.to()));
        if (overlap || covered != g.outFeatures() || p.size() != 3) {
            throw new IllegalStateException("fused q/k/v (" + p.get(0).target() + " …): expected three disjoint"
                    + " column ranges covering " + g.outFeatures() + " columns, found " + p);
        }
    }

    private interface LinearTest {
        boolean test(int linear);
    }

    private List<Integer> all(LinearTest t) {
        List<Integer> found = new ArrayList<>();
        for (int l = 0; l < linears.size(); l++) {
            if (t.test(l)) {
                found.add(l);
            }
        }
        return found;
    }

    private int unique(String target, String expected, LinearTest t) {
        List<Integer> found = all(t);
        if (found.size() != 1) {
            throw new IllegalStateException(
                    target + ": expected exactly one linear layer (" + expected + "), found " + found.size());
        }
        return found.get(0);
    }

    private void put(int lin, String target) {
        put(lin, List.of(new AdaptedLinear.Part(target, 0, linears.get(lin).outFeatures())));
    }

    private void put(int lin, List<AdaptedLinear.Part> p) {
        List<AdaptedLinear.Part> before = parts.putIfAbsent(lin, p);
        if (before != null) {
            throw new IllegalStateException(p.get(0).target() + ": its linear layer was already identified as "
                    + before.get(0).target());
        }
        for (AdaptedLinear.Part part : p) {
            byTarget.put(part.target(), null);
        }
    }
}
