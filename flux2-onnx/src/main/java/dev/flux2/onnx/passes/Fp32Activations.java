package dev.flux2.onnx.passes;

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
import dev.flux2.onnx.graph.Attributes;
import dev.flux2.onnx.graph.ElementTypes;
import dev.flux2.onnx.graph.FreshNames;
import dev.flux2.onnx.graph.Nodes;
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
import java.util.Optional;
import java.util.Set;

/**
 * Computes in fp32 where the graph computes in fp16 ({@code cpu_tuned}'s {@code fp32}): every graph input of type
 * fp16 is cast to fp32 by a new first node and its uses renamed, every fp16 graph output is produced in fp32 and cast
 * back by a new last node, so the graph's inputs and outputs keep their names and element types; inside, casts to
 * fp16 become casts to fp32 ({@code Cast.to}, {@code dtype} attributes), and fp16 initializers, constant tensors and
 * value infos become fp32. External fp16 tensors (the {@code MatMulNBits} scales, other fp16 weights) are read,
 * widened and appended to the context's new data file; no other weight is read. A graph with subgraphs (If, Loop,
 * Scan) is left alone. Immutable.
 */
public final class Fp32Activations implements GraphPass {
    /** The pass's id. */
    public static final String ID = "fp32-activations";

    /** Raised whenever the pass writes anything different for the same input. */
    static final int VERSION = 1;

    private static final Fp32Activations INSTANCE = new Fp32Activations();
    private static final int FLOAT = ElementTypes.FLOAT;
    private static final int FLOAT16 = ElementTypes.FLOAT16;
    private static final String SUFFIX = "/flux2_fp32";

    private Fp32Activations() {}

    /** @return the pass */
    public static Fp32Activations pass() {
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
    public PassOutcome apply(ModelProto model, PassContext context) throws IOException {
        Optional<NodeProto> owner = Attributes.subgraphOwner(model.getGraph());
        if (owner.isPresent()) {
            String why = "the graph has subgraphs (" + owner.get().getOpType() + "): activations kept";
            return new PassOutcome(model, 1, 0, List.of(why), why);
        }
        Conversion c = new Conversion(context);
        GraphProto.Builder g = model.getGraph().toBuilder();
        c.convertActivations(g);
        String summary = "activations in fp32: " + c.castsRetyped + " casts and " + c.tensorsRetyped
                + " tensors re-typed, " + context.newData().size() + " bytes of new data";
        return new PassOutcome(model.toBuilder().setGraph(g).build(), 1, 1, List.of(), summary);
    }

    /** One conversion: the counts and the context. */
    private static final class Conversion {
        private final PassContext context;
        private int castsRetyped;
        private int tensorsRetyped;

        Conversion(PassContext context) {
            this.context = context;
        }

        private void convertActivations(GraphProto.Builder g) throws IOException {
            FreshNames names = FreshNames.of(g.build());

            // Inputs: cast fp16 inputs to fp32 once, and feed the cast to every consumer.
            Map<String, String> inputRenames = new HashMap<>();
            List<NodeProto> prologue = new ArrayList<>();
            Set<String> initializerNames = new HashSet<>();
            g.getInitializerList().forEach(t -> initializerNames.add(t.getName()));
            for (ValueInfoProto in : g.getInputList()) {
                if (isFp16(in) && !initializerNames.contains(in.getName())) {
                    String renamed = names.fresh(in.getName() + SUFFIX);
                    inputRenames.put(in.getName(), renamed);
                    prologue.add(Nodes.cast("flux2_cast_in_" + in.getName(), in.getName(), renamed, FLOAT));
                }
            }
            // Outputs: produce fp16 outputs in fp32 under a new name, and cast back at the end.
            Map<String, String> outputRenames = new HashMap<>();
            List<NodeProto> epilogue = new ArrayList<>();
            Set<String> graphInputs = new HashSet<>();
            g.getInputList().forEach(v -> graphInputs.add(v.getName()));
            for (ValueInfoProto out : g.getOutputList()) {
                if (isFp16(out) && !graphInputs.contains(out.getName()) && !initializerNames.contains(out.getName())) {
                    String renamed = names.fresh(out.getName() + SUFFIX);
                    outputRenames.put(out.getName(), renamed);
                    epilogue.add(Nodes.cast("flux2_cast_out_" + out.getName(), renamed, out.getName(), FLOAT16));
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

        private NodeProto convertNode(
                NodeProto node, Map<String, String> inputRenames, Map<String, String> outputRenames)
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
                long offset = context.newData().append(widened);
                b.clearExternalData()
                        .addExternalData(entry("location", context.newData().location()))
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
            return b.clearInt32Data()
                    .setRawData(ByteString.copyFrom(widen(raw)))
                    .build();
        }

        private static StringStringEntryProto entry(String key, String value) {
            return StringStringEntryProto.newBuilder()
                    .setKey(key)
                    .setValue(value)
                    .build();
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
            Path file = context.sourceFolder().resolve(location).normalize();
            if (!file.startsWith(context.sourceFolder().normalize())) {
                throw new IOException("external tensor " + t.getName() + " points outside the bundle: " + location);
            }
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                if (length < 0) {
                    length = ch.size() - offset;
                }
                if (length > Integer.MAX_VALUE) {
                    throw new IOException(
                            "external fp16 tensor " + t.getName() + " is too large to re-type: " + length);
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
}
