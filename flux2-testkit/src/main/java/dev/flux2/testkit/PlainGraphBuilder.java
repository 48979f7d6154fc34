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
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * A plain ONNX graph written with ONNX's protobuf classes, for tests and benchmarks of graph code (sessions, header
 * reading, graph passes): inputs, outputs and value infos with fixed or symbolic dimensions, nodes with generated
 * names, initializers, and the model around it. Unlike {@link GraphBuilder} (a synthetic bundle's graph, with the
 * spec's failure overrides) nothing is added or renamed. Element types are ONNX's {@code TensorProto.DataType}
 * numbers. Not thread-safe.
 */
public final class PlainGraphBuilder {
    private final GraphProto.Builder graph;
    private int counter;

    private PlainGraphBuilder(String name) {
        this.graph = GraphProto.newBuilder().setName(Objects.requireNonNull(name, "name"));
    }

    /**
     * @param name the graph's name
     * @return an empty graph
     */
    public static PlainGraphBuilder named(String name) {
        return new PlainGraphBuilder(name);
    }

    /**
     * @param name the input's name
     * @param type its element type
     * @param dims its dimensions: a {@link Number} for a fixed size, a {@link String} for a symbolic one
     * @return this builder
     */
    public PlainGraphBuilder input(String name, int type, Object... dims) {
        graph.addInput(valueInfoProto(name, type, dims));
        return this;
    }

    /**
     * @param name the output's name
     * @param type its element type
     * @param dims its dimensions, as for {@link #input}
     * @return this builder
     */
    public PlainGraphBuilder output(String name, int type, Object... dims) {
        graph.addOutput(valueInfoProto(name, type, dims));
        return this;
    }

    /**
     * @param name the output's name
     * @param type its element type
     * @return this builder, the output declared without a shape (ONNX Runtime infers it)
     */
    public PlainGraphBuilder outputOfAnyShape(String name, int type) {
        graph.addOutput(ValueInfoProto.newBuilder()
                .setName(name)
                .setType(TypeProto.newBuilder()
                        .setTensorType(TypeProto.Tensor.newBuilder().setElemType(type))));
        return this;
    }

    /**
     * @param name an intermediate value's name
     * @param type its element type
     * @param dims its dimensions, as for {@link #input}
     * @return this builder
     */
    public PlainGraphBuilder valueInfo(String name, int type, Object... dims) {
        graph.addValueInfo(valueInfoProto(name, type, dims));
        return this;
    }

    /**
     * @param tensor an initializer
     * @return this builder
     */
    public PlainGraphBuilder initializer(TensorProto tensor) {
        graph.addInitializer(tensor);
        return this;
    }

    /**
     * Adds a default-domain node named {@code n<counter>}.
     *
     * @param op the operator
     * @param inputs its inputs
     * @param output its one output
     * @param attributes its attributes
     * @return this builder
     */
    public PlainGraphBuilder node(String op, List<String> inputs, String output, AttributeProto... attributes) {
        return node("", op, inputs, output, attributes);
    }

    /**
     * Adds a node named {@code n<counter>}.
     *
     * @param domain its domain ({@code ""} for ONNX's, {@code com.microsoft} for ONNX Runtime's contrib operators)
     * @param op the operator
     * @param inputs its inputs
     * @param output its one output
     * @param attributes its attributes
     * @return this builder
     */
    public PlainGraphBuilder node(
            String domain, String op, List<String> inputs, String output, AttributeProto... attributes) {
        graph.addNode(NodeProto.newBuilder()
                .setName("n" + counter++)
                .setDomain(domain)
                .setOpType(op)
                .addAllInput(inputs)
                .addOutput(output)
                .addAllAttribute(List.of(attributes)));
        return this;
    }

    /**
     * Adds a default-domain node whose output gets a fresh name {@code v<counter>}.
     *
     * @param op the operator
     * @param inputs its inputs
     * @param attributes its attributes
     * @return the output's name
     */
    public String op(String op, List<String> inputs, AttributeProto... attributes) {
        String out = "v" + counter;
        node(op, inputs, out, attributes);
        return out;
    }

    /** @return the graph built so far */
    public GraphProto graph() {
        return graph.build();
    }

    /**
     * @param irVersion the model's IR version
     * @param opset the default domain's opset
     * @return the model, importing the default domain and, when a node uses it, {@code com.microsoft} 1
     */
    public ModelProto model(long irVersion, long opset) {
        ModelProto.Builder m = ModelProto.newBuilder()
                .setIrVersion(irVersion)
                .setProducerName("flux2-testkit")
                .addOpsetImport(OperatorSetIdProto.newBuilder().setDomain("").setVersion(opset));
        if (graph.getNodeList().stream().anyMatch(n -> n.getDomain().equals(GraphBuilder.MS_DOMAIN))) {
            m.addOpsetImport(OperatorSetIdProto.newBuilder()
                    .setDomain(GraphBuilder.MS_DOMAIN)
                    .setVersion(1));
        }
        return m.setGraph(graph).build();
    }

    /**
     * @param model a model
     * @param file where to write it
     * @return {@code file}
     */
    public static Path write(ModelProto model, Path file) {
        try {
            if (file.getParent() != null) {
                Files.createDirectories(file.getParent());
            }
            try (OutputStream out = Files.newOutputStream(file)) {
                model.writeTo(out);
            }
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * @param name a value's name
     * @param type its element type
     * @param dims its dimensions: a {@link Number} for a fixed size, a {@link String} for a symbolic one
     * @return the value info
     */
    public static ValueInfoProto valueInfoProto(String name, int type, Object... dims) {
        TensorShapeProto.Builder shape = TensorShapeProto.newBuilder();
        for (Object d : dims) {
            TensorShapeProto.Dimension.Builder dim = TensorShapeProto.Dimension.newBuilder();
            if (d instanceof String s) {
                dim.setDimParam(s);
            } else {
                dim.setDimValue(((Number) d).longValue());
            }
            shape.addDim(dim);
        }
        return ValueInfoProto.newBuilder()
                .setName(name)
                .setType(TypeProto.newBuilder()
                        .setTensorType(
                                TypeProto.Tensor.newBuilder().setElemType(type).setShape(shape)))
                .build();
    }

    /**
     * @param name the attribute's name
     * @param value its value
     * @return an {@code INT} attribute
     */
    public static AttributeProto intAttr(String name, long value) {
        return AttributeProto.newBuilder()
                .setName(name)
                .setType(AttributeProto.AttributeType.INT)
                .setI(value)
                .build();
    }

    /**
     * @param name the attribute's name
     * @param values its values
     * @return an {@code INTS} attribute
     */
    public static AttributeProto intsAttr(String name, long... values) {
        AttributeProto.Builder b = AttributeProto.newBuilder().setName(name).setType(AttributeProto.AttributeType.INTS);
        for (long v : values) {
            b.addInts(v);
        }
        return b.build();
    }

    /**
     * @param name the attribute's name
     * @param value its value
     * @return a {@code FLOAT} attribute
     */
    public static AttributeProto floatAttr(String name, float value) {
        return AttributeProto.newBuilder()
                .setName(name)
                .setType(AttributeProto.AttributeType.FLOAT)
                .setF(value)
                .build();
    }

    /**
     * @param name the tensor's name
     * @param type its element type
     * @param littleEndian its data
     * @param dims its dimensions
     * @return a tensor with raw data
     */
    public static TensorProto rawTensor(String name, int type, byte[] littleEndian, long... dims) {
        TensorProto.Builder t =
                TensorProto.newBuilder().setName(name).setDataType(type).setRawData(ByteString.copyFrom(littleEndian));
        for (long d : dims) {
            t.addDims(d);
        }
        return t.build();
    }

    /**
     * @param name the tensor's name
     * @param type its element type
     * @param location its data file, relative to the graph's folder
     * @param offset where its data starts
     * @param length its data's length
     * @param dims its dimensions
     * @return a tensor whose data is in an external file
     */
    public static TensorProto externalTensor(
            String name, int type, String location, long offset, long length, long... dims) {
        TensorProto.Builder t = TensorProto.newBuilder()
                .setName(name)
                .setDataType(type)
                .setDataLocation(TensorProto.DataLocation.EXTERNAL)
                .addExternalData(entry("location", location))
                .addExternalData(entry("offset", Long.toString(offset)))
                .addExternalData(entry("length", Long.toString(length)));
        for (long d : dims) {
            t.addDims(d);
        }
        return t.build();
    }

    private static StringStringEntryProto entry(String key, String value) {
        return StringStringEntryProto.newBuilder().setKey(key).setValue(value).build();
    }
}
