package dev.flux2.testkit;

import ai.onnx.proto.OnnxMl.AttributeProto;
import ai.onnx.proto.OnnxMl.GraphProto;
import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnx.proto.OnnxMl.NodeProto;
import ai.onnx.proto.OnnxMl.OperatorSetIdProto;
import ai.onnx.proto.OnnxMl.StringStringEntryProto;
import ai.onnx.proto.OnnxMl.TensorProto;
import ai.onnx.proto.OnnxMl.TensorShapeProto;
import ai.onnx.proto.OnnxMl.TypeProto;
import ai.onnx.proto.OnnxMl.ValueInfoProto;
import com.google.protobuf.ByteString;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Builds one ONNX model with the protobuf classes directly (opset 17 plus com.microsoft 1), generating unique
 * node and value names. Graph inputs go through {@link #input}, which applies the spec's failure-test overrides
 * (renamed input, other element type) and casts every input to the type the graph computes in, so an overridden
 * graph still loads and computes the same function.
 */
public final class GraphBuilder {
    static final int OPSET = 17;
    static final String MS_DOMAIN = "com.microsoft";

    private final GraphProto.Builder graph = GraphProto.newBuilder();
    private final Map<String, String> renames;
    private final Map<String, TensorElementType> types;
    private final Set<String> initializerNames = new HashSet<>();
    private int counter;

    /**
     * @param which the graph being built (names the graph and selects the spec's overrides for it)
     * @param spec the bundle spec whose failure-test overrides apply
     */
    public GraphBuilder(BundleGraph which, SyntheticBundleSpec spec) {
        graph.setName("synthetic_" + which.key());
        this.renames = spec.renamedInputs(which.key());
        this.types = spec.inputElementTypes(which.key());
    }

    /**
     * Declares a graph input (with any override) and casts it to {@code computeType}.
     *
     * @return the name of the cast value the graph computes with
     */
    public String input(Port port, TensorElementType computeType) {
        String fileName = renames.getOrDefault(port.name(), port.name());
        TensorElementType declared = types.getOrDefault(port.name(), port.type());
        graph.addInput(valueInfo(fileName, declared, port.shape()));
        return cast(fileName, computeType);
    }

    /** Casts {@code value} (computed in fp32) to the port's type under the port's exact output name. */
    public void output(String value, Port port) {
        node("Cast", List.of(value), port.name(), attrInt("to", port.type().onnxCode()));
        graph.addOutput(valueInfo(port.name(), port.type(), port.shape()));
    }

    /** @return the name of {@code value} cast to {@code to} */
    public String cast(String value, TensorElementType to) {
        return op("Cast", List.of(value), attrInt("to", to.onnxCode()));
    }

    /** Rounds an fp32 value to fp16 and back, the way an fp16 tensor between two real graph nodes would. */
    String roundToHalf(String value) {
        return cast(cast(value, TensorElementType.FLOAT16), TensorElementType.FLOAT);
    }

    /** @return the single output of a new default-domain node {@code opType(inputs)} */
    public String op(String opType, String... inputs) {
        return op(opType, List.of(inputs));
    }

    /** @return the single output of a new default-domain node {@code opType(inputs)} with attributes */
    public String op(String opType, List<String> inputs, AttributeProto... attributes) {
        String out = "/synthetic/" + opType + "_" + counter + "_output_0";
        node(opType, inputs, out, attributes);
        return out;
    }

    /** @return the single output of a new {@code com.microsoft} node {@code opType(inputs)} with attributes */
    public String msOp(String opType, List<String> inputs, AttributeProto... attributes) {
        String out = "/synthetic/" + opType + "_" + counter + "_output_0";
        NodeProto.Builder n = nodeBuilder(opType, inputs, out, attributes);
        n.setDomain(MS_DOMAIN);
        graph.addNode(n);
        return out;
    }

    private void node(String opType, List<String> inputs, String output, AttributeProto... attributes) {
        graph.addNode(nodeBuilder(opType, inputs, output, attributes));
    }

    /**
     * Rounds an fp32 value to {@code type} and back, the way a tensor of that type between two graphs would (a
     * no-op for FLOAT, and for DOUBLE, which holds every fp32 value exactly).
     */
    String roundTo(String value, TensorElementType type) {
        if (type == TensorElementType.FLOAT || type == TensorElementType.DOUBLE) {
            return value;
        }
        if (type == TensorElementType.FLOAT16) {
            return roundToHalf(value);
        }
        return cast(cast(value, type), TensorElementType.FLOAT);
    }

    private NodeProto.Builder nodeBuilder(
            String opType, List<String> inputs, String output, AttributeProto... attributes) {
        NodeProto.Builder n = NodeProto.newBuilder()
                .setOpType(opType)
                .setName("/synthetic/" + opType + "_" + counter++)
                .addAllInput(inputs)
                .addOutput(output);
        for (AttributeProto a : attributes) {
            n.addAttribute(a);
        }
        return n;
    }

    /** Adds an inline fp32 initializer with a fresh name. */
    public String constFloat(float[] values, long... dims) {
        ByteBuffer buf = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (float v : values) {
            buf.putFloat(v);
        }
        return inline(TensorElementType.FLOAT, buf.array(), dims);
    }

    /** Adds an inline fp16 initializer with a fresh name ({@code values} rounded to fp16). */
    public String constHalf(float[] values, long... dims) {
        ByteBuffer buf = ByteBuffer.allocate(values.length * 2).order(ByteOrder.LITTLE_ENDIAN);
        for (float v : values) {
            buf.putShort(Fp16.fromFloat(v));
        }
        return inline(TensorElementType.FLOAT16, buf.array(), dims);
    }

    /** Adds an inline fp32 scalar (rank 0). */
    public String scalar(float value) {
        return constFloat(new float[] {value});
    }

    /** Adds an inline int64 initializer with a fresh name. */
    public String constLong(long[] values, long... dims) {
        ByteBuffer buf = ByteBuffer.allocate(values.length * 8).order(ByteOrder.LITTLE_ENDIAN);
        for (long v : values) {
            buf.putLong(v);
        }
        return inline(TensorElementType.INT64, buf.array(), dims);
    }

    private String inline(TensorElementType type, byte[] raw, long... dims) {
        String name = "/synthetic/const_" + counter++;
        TensorProto.Builder t = TensorProto.newBuilder()
                .setName(name)
                .setDataType(type.onnxCode())
                .setRawData(ByteString.copyFrom(raw));
        for (long d : dims) {
            t.addDims(d);
        }
        graph.addInitializer(t);
        initializerNames.add(name);
        return name;
    }

    /** Adds an initializer whose bytes live in an external-data shard (once per name). */
    public String external(String name, TensorElementType type, ExternalRef ref, long... dims) {
        if (initializerNames.add(name)) {
            TensorProto.Builder t = TensorProto.newBuilder()
                    .setName(name)
                    .setDataType(type.onnxCode())
                    .setDataLocation(TensorProto.DataLocation.EXTERNAL)
                    .addExternalData(entry("location", ref.location()))
                    .addExternalData(entry("offset", Long.toString(ref.offset())))
                    .addExternalData(entry("length", Long.toString(ref.length())));
            for (long d : dims) {
                t.addDims(d);
            }
            graph.addInitializer(t);
        }
        return name;
    }

    /** @return the model (IR 8, opset 17 plus com.microsoft 1) */
    public ModelProto build() {
        return ModelProto.newBuilder()
                .setIrVersion(8)
                .setProducerName("flux2-testkit")
                .setProducerVersion("1")
                .setModelVersion(1)
                .setDocString("Synthetic miniature FLUX.2 [klein] graph; not a real model.")
                .addOpsetImport(OperatorSetIdProto.newBuilder().setDomain("").setVersion(OPSET))
                .addOpsetImport(
                        OperatorSetIdProto.newBuilder().setDomain(MS_DOMAIN).setVersion(1))
                .setGraph(graph)
                .build();
    }

    static StringStringEntryProto entry(String key, String value) {
        return StringStringEntryProto.newBuilder().setKey(key).setValue(value).build();
    }

    static ValueInfoProto valueInfo(String name, TensorElementType type, List<Dim> shape) {
        TensorShapeProto.Builder s = TensorShapeProto.newBuilder();
        for (Dim d : shape) {
            TensorShapeProto.Dimension.Builder dim = TensorShapeProto.Dimension.newBuilder();
            if (d.symbolic()) {
                dim.setDimParam(d.symbol());
            } else {
                dim.setDimValue(d.value());
            }
            s.addDim(dim);
        }
        return ValueInfoProto.newBuilder()
                .setName(name)
                .setType(TypeProto.newBuilder()
                        .setTensorType(TypeProto.Tensor.newBuilder()
                                .setElemType(type.onnxCode())
                                .setShape(s)))
                .build();
    }

    /** @return an INT attribute */
    public static AttributeProto attrInt(String name, long value) {
        return AttributeProto.newBuilder()
                .setName(name)
                .setType(AttributeProto.AttributeType.INT)
                .setI(value)
                .build();
    }

    /** @return an INTS attribute */
    public static AttributeProto attrInts(String name, long... values) {
        AttributeProto.Builder a = AttributeProto.newBuilder().setName(name).setType(AttributeProto.AttributeType.INTS);
        for (long v : values) {
            a.addInts(v);
        }
        return a.build();
    }

    /** @return a string attribute */
    public static AttributeProto attrString(String name, String value) {
        return AttributeProto.newBuilder()
                .setName(name)
                .setType(AttributeProto.AttributeType.STRING)
                .setS(ByteString.copyFrom(value, StandardCharsets.UTF_8))
                .build();
    }
}
