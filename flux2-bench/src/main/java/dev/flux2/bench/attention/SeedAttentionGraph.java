package dev.flux2.bench.attention;

import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnx.proto.OnnxMl.TensorProto;
import dev.flux2.testkit.PlainGraphBuilder;
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
        PlainGraphBuilder g = PlainGraphBuilder.named("seed_attention");
        for (String n : List.of("q", "k", "v")) {
            g.input(n, FLOAT16, 1, heads, tokens, HEAD_DIM);
        }
        g.output("out", FLOAT16, 1, heads, tokens, HEAD_DIM);
        float scale = (float) Math.pow(HEAD_DIM, -0.25);
        g.initializer(PlainGraphBuilder.rawTensor(
                "scale",
                FLOAT,
                ByteBuffer.allocate(4)
                        .order(ByteOrder.LITTLE_ENDIAN)
                        .putFloat(scale)
                        .array()));
        g.node("Cast", List.of("q"), "q32", PlainGraphBuilder.intAttr("to", FLOAT));
        g.node("Cast", List.of("k"), "k32", PlainGraphBuilder.intAttr("to", FLOAT));
        g.node("Mul", List.of("q32", "scale"), "qs");
        g.node("Mul", List.of("k32", "scale"), "ks");
        g.node("Transpose", List.of("ks"), "kt", PlainGraphBuilder.intsAttr("perm", 0, 1, 3, 2));
        g.node("MatMul", List.of("qs", "kt"), "scores");
        g.node("Softmax", List.of("scores"), "probs", PlainGraphBuilder.intAttr("axis", -1));
        g.node("Cast", List.of("probs"), "probs16", PlainGraphBuilder.intAttr("to", FLOAT16));
        g.node("MatMul", List.of("probs16", "v"), "out");
        return g.model(8, 17);
    }
}
