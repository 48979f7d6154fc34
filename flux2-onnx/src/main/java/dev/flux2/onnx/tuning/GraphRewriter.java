package dev.flux2.onnx.tuning;

import ai.onnx.proto.OnnxMl.AttributeProto;
import ai.onnx.proto.OnnxMl.GraphProto;
import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnx.proto.OnnxMl.NodeProto;
import ai.onnx.proto.OnnxMl.StringStringEntryProto;
import ai.onnx.proto.OnnxMl.TensorProto;
import ai.onnx.proto.OnnxMl.TypeProto;
import ai.onnx.proto.OnnxMl.ValueInfoProto;
import ai.onnxruntime.platform.Fp16Conversions;
import com.google.protobuf.ByteString;
import dev.flux2.onnx.attention.AttentionFuser;
import dev.flux2.onnx.weights.WeightDequantizer;
import dev.flux2.onnx.weights.WeightForm;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Rewrites one graph for the CPU ({@link CpuTuning}) without loading its weights: only the graph message is parsed;
 * external initializers keep pointing at the original shards, except fp16 tensors that fp32 activations re-type
 * (the {@code MatMulNBits} scales, other fp16 weights), which are read, widened and appended to a new data file.
 *
 * <p>fp32 activations: every graph input of type fp16 is cast to fp32 by a new first node and its uses renamed,
 * every fp16 graph output is produced in fp32 and cast back by a new last node, so the graph's inputs and outputs
 * keep their names and element types; inside, casts to fp16 become casts to fp32 ({@code Cast.to},
 * {@code dtype} attributes), and fp16 initializers, constant tensors and value infos become fp32. Graphs with
 * subgraphs (If, Loop, Scan) keep their activations (only {@code accuracy_level} is changed).
 *
 * <p>Stateless apart from the data sink it writes to; not thread-safe.
 */
final class GraphRewriter {
    private static final int FLOAT = TensorProto.DataType.FLOAT_VALUE;
    private static final int FLOAT16 = TensorProto.DataType.FLOAT16_VALUE;
    private static final String SUFFIX = "/flux2_fp32";

    /** What the rewrite did, for logs and tests. */
    record Report(
            int matMulNBits,
            int accuracyChanged,
            int castsRetyped,
            int tensorsRetyped,
            long newDataBytes,
            boolean activationsConverted,
            Optional<AttentionFuser.Result> attention,
            Optional<WeightDequantizer.Result> weights) {
        /** @return whether the graph changed beyond the CPU edits: attention fused or weights dequantized */
        boolean fusedOrDequantized() {
            return attention.map(a -> a.fused() > 0).orElse(false)
                    || weights.map(w -> w.rewritten() > 0).orElse(false);
        }
    }

    private final Path sourceFolder;
    private final NewData newData;
    private int matMulNBits;
    private int accuracyChanged;
    private int castsRetyped;
    private int tensorsRetyped;

    /**
     * @param sourceFolder the folder the source graph's external-data locations are relative to
     * @param newData where re-typed external tensors are written
     */
    GraphRewriter(Path sourceFolder, NewData newData) {
        this.sourceFolder = Objects.requireNonNull(sourceFolder, "sourceFolder");
        this.newData = Objects.requireNonNull(newData, "newData");
    }

    /**
     * A data file the rewritten graph references for the tensors it re-typed.
     */
    interface NewData {
        /** @return the {@code location} to write into the graph for this file */
        String location();

        /**
         * @param bytes little-endian tensor data
         * @return the offset it was written at
         * @throws IOException when writing fails
         */
        long append(byte[] bytes) throws IOException;

        /** @return bytes written so far */
        long size();
    }

    /**
     * @param model the source graph (external data not loaded)
     * @param tuning the edits
     * @return the rewritten model and what was done
     * @throws IOException when an fp16 external tensor cannot be read or written
     */
    RewriteResult rewrite(ModelProto model, CpuTuning tuning) throws IOException {
        Optional<AttentionFuser.Result> attention = Optional.empty();
        Optional<WeightDequantizer.Result> weights = Optional.empty();
        if (tuning.weights() != WeightForm.PACKED) {
            // First: the fp32 conversion below then widens the re-typed scales like any fp16 initializer.
            WeightDequantizer.Rewrite r = WeightDequantizer.dequantize(
                    model, WeightDequantizer.SLOW_BLOCK_SIZES, tuning.weights() == WeightForm.DEQUANTIZED);
            model = r.model();
            weights = Optional.of(r.result());
        }
        if (tuning.fusedAttention()) {
            // First, on the source's types: the fp32 conversion below then also re-types the casts it adds.
            AttentionFuser.Fusion fusion = AttentionFuser.fuse(model, tuning.mhaPrecision());
            model = fusion.model();
            attention = Optional.of(fusion.result());
        }
        GraphProto graph = model.getGraph();
        boolean convert = tuning.fp32Activations() && !hasSubgraphs(graph);
        GraphProto.Builder g = graph.toBuilder();
        if (convert) {
            convertActivations(g);
        }
        for (int i = 0; i < g.getNodeCount(); i++) {
            NodeProto node = g.getNode(i);
            if (node.getOpType().equals("MatMulNBits")) {
                matMulNBits++;
                if (tuning.accuracyLevelZero()) {
                    g.setNode(i, withAccuracyZero(node));
                }
            }
        }
        ModelProto rewritten = model.toBuilder().setGraph(g).build();
        return new RewriteResult(
                rewritten,
                new Report(
                        matMulNBits,
                        accuracyChanged,
                        castsRetyped,
                        tensorsRetyped,
                        newData.size(),
                        convert,
                        attention,
                        weights));
    }

    /** The rewritten model and its report. */
    record RewriteResult(ModelProto model, Report report) {}

    private NodeProto withAccuracyZero(NodeProto node) {
        NodeProto.Builder b = node.toBuilder();
        boolean found = false;
        for (int a = 0; a < b.getAttributeCount(); a++) {
            AttributeProto attr = b.getAttribute(a);
            if (attr.getName().equals("accuracy_level")) {
                found = true;
                if (attr.getI() != 0) {
                    b.setAttribute(a, attr.toBuilder().setI(0));
                    accuracyChanged++;
                }
            }
        }
        if (!found) {
            // Absent means 0 already.
            return node;
        }
        return b.build();
    }

    private static boolean hasSubgraphs(GraphProto graph) {
        for (NodeProto n : graph.getNodeList()) {
            for (AttributeProto a : n.getAttributeList()) {
                if (a.hasG() || a.getGraphsCount() > 0) {
                    return true;
                }
            }
        }
        return false;
    }

    private void convertActivations(GraphProto.Builder g) throws IOException {
        Set<String> taken = new HashSet<>();
        g.getNodeList().forEach(n -> {
            taken.addAll(n.getOutputList());
            taken.addAll(n.getInputList());
        });
        g.getInputList().forEach(v -> taken.add(v.getName()));
        g.getInitializerList().forEach(t -> taken.add(t.getName()));

        // Inputs: cast fp16 inputs to fp32 once, and feed the cast to every consumer.
        Map<String, String> inputRenames = new HashMap<>();
        List<NodeProto> prologue = new ArrayList<>();
        Set<String> initializerNames = new HashSet<>();
        g.getInitializerList().forEach(t -> initializerNames.add(t.getName()));
        for (ValueInfoProto in : g.getInputList()) {
            if (isFp16(in) && !initializerNames.contains(in.getName())) {
                String renamed = unique(in.getName() + SUFFIX, taken);
                inputRenames.put(in.getName(), renamed);
                prologue.add(cast(in.getName(), renamed, FLOAT, "flux2_cast_in_" + in.getName()));
            }
        }
        // Outputs: produce fp16 outputs in fp32 under a new name, and cast back at the end.
        Map<String, String> outputRenames = new HashMap<>();
        List<NodeProto> epilogue = new ArrayList<>();
        Set<String> graphInputs = new HashSet<>();
        g.getInputList().forEach(v -> graphInputs.add(v.getName()));
        for (ValueInfoProto out : g.getOutputList()) {
            if (isFp16(out) && !graphInputs.contains(out.getName()) && !initializerNames.contains(out.getName())) {
                String renamed = unique(out.getName() + SUFFIX, taken);
                outputRenames.put(out.getName(), renamed);
                epilogue.add(cast(renamed, out.getName(), FLOAT16, "flux2_cast_out_" + out.getName()));
            }
        }
        List<NodeProto> nodes = new ArrayList<>(prologue);
        for (NodeProto node : g.getNodeList()) {
            nodes.add(convertNode(node, inputRenames, outputRenames));
        }
        nodes.addAll(epilogue);
        g.clearNode().addAllNode(nodes);

        for (int i = 0; i < g.getInitializerCount(); i++) {
            TensorProto t = g.getInitializer(i);
            if (t.getDataType() == FLOAT16) {
                g.setInitializer(i, toFloat(t));
            }
        }
        for (int i = 0; i < g.getValueInfoCount(); i++) {
            ValueInfoProto v = g.getValueInfo(i);
            if (isFp16(v)) {
                g.setValueInfo(i, withElemType(v, FLOAT));
            }
        }
    }

    private NodeProto convertNode(NodeProto node, Map<String, String> inputRenames, Map<String, String> outputRenames)
            throws IOException {
        NodeProto.Builder b = node.toBuilder();
        for (int i = 0; i < b.getInputCount(); i++) {
            String in = b.getInput(i);
            if (inputRenames.containsKey(in)) {
                b.setInput(i, inputRenames.get(in));
            } else if (outputRenames.containsKey(in)) {
                b.setInput(i, outputRenames.get(in));
            }
        }
        for (int i = 0; i < b.getOutputCount(); i++) {
            String out = b.getOutput(i);
            if (outputRenames.containsKey(out)) {
                b.setOutput(i, outputRenames.get(out));
            }
        }
        for (int a = 0; a < b.getAttributeCount(); a++) {
            AttributeProto attr = b.getAttribute(a);
            boolean typeAttr = attr.getType() == AttributeProto.AttributeType.INT
                    && (attr.getName().equals("to") || attr.getName().equals("dtype"));
            if (typeAttr && attr.getI() == FLOAT16) {
                b.setAttribute(a, attr.toBuilder().setI(FLOAT));
                castsRetyped++;
            } else if (attr.hasT() && attr.getT().getDataType() == FLOAT16) {
                b.setAttribute(a, attr.toBuilder().setT(toFloat(attr.getT())));
            } else if (attr.getTensorsCount() > 0) {
                AttributeProto.Builder ab = attr.toBuilder();
                for (int t = 0; t < ab.getTensorsCount(); t++) {
                    if (ab.getTensors(t).getDataType() == FLOAT16) {
                        ab.setTensors(t, toFloat(ab.getTensors(t)));
                    }
                }
                b.setAttribute(a, ab);
            }
        }
        return b.build();
    }

    private static NodeProto cast(String input, String output, int to, String name) {
        return NodeProto.newBuilder()
                .setName(name)
                .setOpType("Cast")
                .addInput(input)
                .addOutput(output)
                .addAttribute(AttributeProto.newBuilder()
                        .setName("to")
                        .setType(AttributeProto.AttributeType.INT)
                        .setI(to))
                .build();
    }

    private static String unique(String base, Set<String> taken) {
        String name = base;
        for (int i = 2; taken.contains(name); i++) {
            name = base + "_" + i;
        }
        taken.add(name);
        return name;
    }

    private static boolean isFp16(ValueInfoProto v) {
        TypeProto t = v.getType();
        return t.hasTensorType() && t.getTensorType().getElemType() == FLOAT16;
    }

    private static ValueInfoProto withElemType(ValueInfoProto v, int elemType) {
        ValueInfoProto.Builder b = v.toBuilder();
        b.getTypeBuilder().getTensorTypeBuilder().setElemType(elemType);
        return b.build();
    }

    /** An fp16 tensor as fp32: inline data widened in memory, external data widened into the new data file. */
    private TensorProto toFloat(TensorProto t) throws IOException {
        tensorsRetyped++;
        TensorProto.Builder b = t.toBuilder().setDataType(FLOAT);
        if (t.getDataLocation() == TensorProto.DataLocation.EXTERNAL) {
            byte[] widened = widen(readExternal(t));
            long offset = newData.append(widened);
            b.clearExternalData()
                    .addExternalData(entry("location", newData.location()))
                    .addExternalData(entry("offset", Long.toString(offset)))
                    .addExternalData(entry("length", Integer.toString(widened.length)));
            return b.build();
        }
        byte[] raw;
        if (!t.getRawData().isEmpty()) {
            raw = t.getRawData().toByteArray();
        } else {
            // fp16 values stored one per int32 (their 16 bits), as the ONNX spec allows.
            raw = new byte[t.getInt32DataCount() * 2];
            for (int i = 0; i < t.getInt32DataCount(); i++) {
                int bits = t.getInt32Data(i);
                raw[2 * i] = (byte) bits;
                raw[2 * i + 1] = (byte) (bits >>> 8);
            }
        }
        return b.clearInt32Data().setRawData(ByteString.copyFrom(widen(raw))).build();
    }

    private static StringStringEntryProto entry(String key, String value) {
        return StringStringEntryProto.newBuilder().setKey(key).setValue(value).build();
    }

    private static byte[] widen(byte[] fp16) {
        ByteBuffer in = ByteBuffer.wrap(fp16).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer out = ByteBuffer.allocate(fp16.length * 2).order(ByteOrder.LITTLE_ENDIAN);
        while (in.remaining() >= 2) {
            out.putFloat(Fp16Conversions.fp16ToFloat(in.getShort()));
        }
        return out.array();
    }

    private byte[] readExternal(TensorProto t) throws IOException {
        String location = null;
        long offset = 0;
        long length = -1;
        for (StringStringEntryProto e : t.getExternalDataList()) {
            switch (e.getKey()) {
                case "location" -> location = e.getValue();
                case "offset" -> offset = Long.parseLong(e.getValue());
                case "length" -> length = Long.parseLong(e.getValue());
                default -> {
                    // checksum and others: not needed to read
                }
            }
        }
        if (location == null) {
            throw new IOException("external tensor " + t.getName() + " has no location");
        }
        Path file = sourceFolder.resolve(location).normalize();
        if (!file.startsWith(sourceFolder.normalize())) {
            throw new IOException("external tensor " + t.getName() + " points outside the bundle: " + location);
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            if (length < 0) {
                length = ch.size() - offset;
            }
            if (length > Integer.MAX_VALUE) {
                throw new IOException("external fp16 tensor " + t.getName() + " is too large to re-type: " + length);
            }
            ByteBuffer buf = ByteBuffer.allocate((int) length);
            while (buf.hasRemaining()) {
                if (ch.read(buf, offset + buf.position()) < 0) {
                    throw new IOException("external tensor " + t.getName() + ": " + location + " ends before "
                            + (offset + length) + " bytes");
                }
            }
            return buf.array();
        }
    }
}
