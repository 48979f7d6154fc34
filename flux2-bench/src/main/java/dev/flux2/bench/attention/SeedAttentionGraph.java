package dev.flux2.bench.attention;

import ai.onnx.proto.OnnxMl.AttributeProto;
import ai.onnx.proto.OnnxMl.GraphProto;
import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnx.proto.OnnxMl.NodeProto;
import ai.onnx.proto.OnnxMl.OperatorSetIdProto;
import ai.onnx.proto.OnnxMl.TensorProto;
import ai.onnx.proto.OnnxMl.TensorShapeProto;
import ai.onnx.proto.OnnxMl.TypeProto;
import ai.onnx.proto.OnnxMl.ValueInfoProto;
import com.google.protobuf.ByteString;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * One attention as the seed export writes it: fp16 q, k, v [1, heads, tokens, 128]; q and k cast to fp32 and scaled
 * by 128^-0.25 each, scores q·kᵀ and softmax in fp32, probabilities cast to fp16, ·v in fp16.
 */
final class SeedAttentionGraph {
    static final int HEAD_DIM = 128;
    private static final int FLOAT = TensorProto.DataType.FLOAT_VALUE;
    private static final int FLOAT16 = TensorProto.DataType.FLOAT16_VALUE;

    private SeedAttentionGraph() {}

    /**
     * @param heads attention heads
     * @param tokens sequence length (image + text tokens)
     * @return the graph, inputs {@code q}, {@code k}, {@code v}, output {@code out}
     */
    static ModelProto build(int heads, int tokens) {
        GraphProto.Builder g = GraphProto.newBuilder().setName("seed_attention");
        for (String n : List.of("q", "k", "v")) {
            g.addInput(value(n, FLOAT16, heads, tokens));
        }
        g.addOutput(value("out", FLOAT16, heads, tokens));
        float scale = (float) Math.pow(HEAD_DIM, -0.25);
        g.addInitializer(TensorProto.newBuilder()
                .setName("scale")
                .setDataType(FLOAT)
                .setRawData(ByteString.copyFrom(ByteBuffer.allocate(4)
                        .order(ByteOrder.LITTLE_ENDIAN)
                        .putFloat(scale)
                        .array())));
        node(g, "Cast", List.of("q"), "q32", intAttr("to", FLOAT));
        node(g, "Cast", List.of("k"), "k32", intAttr("to", FLOAT));
        node(g, "Mul", List.of("q32", "scale"), "qs");
        node(g, "Mul", List.of("k32", "scale"), "ks");
        node(g, "Transpose", List.of("ks"), "kt", perm());
        node(g, "MatMul", List.of("qs", "kt"), "scores");
        node(g, "Softmax", List.of("scores"), "probs", intAttr("axis", -1));
        node(g, "Cast", List.of("probs"), "probs16", intAttr("to", FLOAT16));
        node(g, "MatMul", List.of("probs16", "v"), "out");
        return ModelProto.newBuilder()
                .setIrVersion(8)
                .addOpsetImport(OperatorSetIdProto.newBuilder().setDomain("").setVersion(17))
                .setGraph(g)
                .build();
    }

    private static void node(GraphProto.Builder g, String op, List<String> in, String out, AttributeProto... a) {
        g.addNode(NodeProto.newBuilder()
                .setName(out)
                .setOpType(op)
                .addAllInput(in)
                .addOutput(out)
                .addAllAttribute(List.of(a)));
    }

    private static AttributeProto intAttr(String name, long v) {
        return AttributeProto.newBuilder()
                .setName(name)
                .setType(AttributeProto.AttributeType.INT)
                .setI(v)
                .build();
    }

    private static AttributeProto perm() {
        return AttributeProto.newBuilder()
                .setName("perm")
                .setType(AttributeProto.AttributeType.INTS)
                .addAllInts(List.of(0L, 1L, 3L, 2L))
                .build();
    }

    private static ValueInfoProto value(String name, int type, int heads, int tokens) {
        TensorShapeProto.Builder s = TensorShapeProto.newBuilder();
        for (long d : new long[] {1, heads, tokens, HEAD_DIM}) {
            s.addDim(TensorShapeProto.Dimension.newBuilder().setDimValue(d));
        }
        return ValueInfoProto.newBuilder()
                .setName(name)
                .setType(TypeProto.newBuilder()
                        .setTensorType(
                                TypeProto.Tensor.newBuilder().setElemType(type).setShape(s)))
                .build();
    }
}
