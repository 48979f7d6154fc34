package dev.flux2.onnx.session;

import ai.onnx.proto.OnnxMl;
import com.google.protobuf.ByteString;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

/** Tiny ONNX graphs written with the official protobuf classes, for session-level tests. */
final class TestGraphs {
    private TestGraphs() {}

    private static OnnxMl.ValueInfoProto floatValue(String name, Object... dims) {
        OnnxMl.TensorShapeProto.Builder shape = OnnxMl.TensorShapeProto.newBuilder();
        for (Object d : dims) {
            OnnxMl.TensorShapeProto.Dimension.Builder dim = OnnxMl.TensorShapeProto.Dimension.newBuilder();
            if (d instanceof String s) {
                dim.setDimParam(s);
            } else {
                dim.setDimValue(((Number) d).longValue());
            }
            shape.addDim(dim);
        }
        return OnnxMl.ValueInfoProto.newBuilder()
                .setName(name)
                .setType(OnnxMl.TypeProto.newBuilder()
                        .setTensorType(OnnxMl.TypeProto.Tensor.newBuilder()
                                .setElemType(OnnxMl.TensorProto.DataType.FLOAT.getNumber())
                                .setShape(shape)))
                .build();
    }

    private static Path write(OnnxMl.GraphProto graph, Path file) {
        OnnxMl.ModelProto model = OnnxMl.ModelProto.newBuilder()
                .setIrVersion(8)
                .setProducerName("flux2-test")
                .addOpsetImport(OnnxMl.OperatorSetIdProto.newBuilder().setVersion(17))
                .setGraph(graph)
                .build();
        try {
            return Files.write(file, model.toByteArray());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return y = x + x over x [1, n] with n symbolic */
    static Path doubler(Path file) {
        return write(
                OnnxMl.GraphProto.newBuilder()
                        .setName("doubler")
                        .addNode(OnnxMl.NodeProto.newBuilder()
                                .setOpType("Add")
                                .addInput("x")
                                .addInput("x")
                                .addOutput("y"))
                        .addInput(floatValue("x", 1, "n"))
                        .addOutput(floatValue("y", 1, "n"))
                        .build(),
                file);
    }

    /**
     * @param size matrix side
     * @param depth number of chained MatMuls (each reuses one weight, so the file stays small)
     * @return y = x·W·W·…·W over x [size, size], slow enough to be cancelled in the middle
     */
    static Path matMulChain(Path file, int size, int depth) {
        ByteBuffer w = ByteBuffer.allocate(size * size * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < size * size; i++) {
            w.putFloat(((i * 31) % 17 - 8) / (8f * size));
        }
        OnnxMl.GraphProto.Builder g = OnnxMl.GraphProto.newBuilder()
                .setName("chain")
                .addInitializer(OnnxMl.TensorProto.newBuilder()
                        .setName("w")
                        .addDims(size)
                        .addDims(size)
                        .setDataType(OnnxMl.TensorProto.DataType.FLOAT.getNumber())
                        .setRawData(ByteString.copyFrom(w.array())))
                .addInput(floatValue("x", size, size))
                .addOutput(floatValue("y", size, size));
        String previous = "x";
        for (int i = 0; i < depth; i++) {
            String out = i == depth - 1 ? "y" : "h" + i;
            g.addNode(OnnxMl.NodeProto.newBuilder()
                    .setOpType("MatMul")
                    .addInput(previous)
                    .addInput("w")
                    .addOutput(out));
            previous = out;
        }
        return write(g.build(), file);
    }
}
