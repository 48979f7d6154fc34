package dev.flux2.onnx.passes;

import ai.onnx.proto.OnnxMl.AttributeProto;
import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnx.proto.OnnxMl.TensorProto;
import ai.onnxruntime.platform.Fp16Conversions;
import dev.flux2.testkit.PlainGraphBuilder;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * Small attention graphs written node by node (the testkit's {@link PlainGraphBuilder}) for the MHA fusion's tests: q, k, v graph inputs of shape [1, N, S, H] (kᵀ
 * [1, N, H, S] for the VAE chunk form) and one output.
 */
public final class AttentionGraphs {
    static final int FLOAT = TensorProto.DataType.FLOAT_VALUE;
    static final int FLOAT16 = TensorProto.DataType.FLOAT16_VALUE;

    private final PlainGraphBuilder g = PlainGraphBuilder.named("attention");
    private int next;

    /** softmax(q·kᵀ / √H)·v all in fp16: the plain fp16 form (scale as a Div on the scores). */
    public static ModelProto plainFp16(int heads, int seq, int headDim) {
        AttentionGraphs a = new AttentionGraphs();
        a.input("q", FLOAT16, heads, seq, headDim);
        a.input("k", FLOAT16, heads, seq, headDim);
        a.input("v", FLOAT16, heads, seq, headDim);
        String kt = a.op("Transpose", List.of("k"), perm(0, 1, 3, 2));
        String scores = a.op("MatMul", List.of("q", kt));
        String scaled = a.op("Div", List.of(scores, a.scalar((float) Math.sqrt(headDim), FLOAT16)));
        String probs = a.op("Softmax", List.of(scaled), axis(-1));
        a.output(a.op("MatMul", List.of(probs, "v")), "out", FLOAT16, heads, seq, headDim);
        return a.model();
    }

    /** The seed form: fp16 q, k cast to fp32 and scaled by H^-0.25 each, fp32 softmax, cast to fp16, ·v (fp16). */
    public static ModelProto seedForm(int heads, int seq, int headDim) {
        AttentionGraphs a = new AttentionGraphs();
        a.input("q", FLOAT16, heads, seq, headDim);
        a.input("k", FLOAT16, heads, seq, headDim);
        a.input("v", FLOAT16, heads, seq, headDim);
        String s = a.scalar((float) Math.pow(headDim, -0.25), FLOAT);
        String q = a.op("Mul", List.of(a.op("Cast", List.of("q"), to(FLOAT)), s));
        String k = a.op("Mul", List.of(a.op("Cast", List.of("k"), to(FLOAT)), s));
        String probs = a.op(
                "Softmax",
                List.of(a.op("MatMul", List.of(q, a.op("Transpose", List.of(k), perm(0, 1, 3, 2))))),
                axis(-1));
        a.output(
                a.op("MatMul", List.of(a.op("Cast", List.of(probs), to(FLOAT16)), "v")),
                "out",
                FLOAT16,
                heads,
                seq,
                headDim);
        return a.model();
    }

    /** The VAE chunk form: fp32 q, kᵀ and v as inputs, softmax(q·kᵀ)·v (the scale is in q and k already). */
    public static ModelProto vaeChunk(int seq, int headDim) {
        AttentionGraphs a = new AttentionGraphs();
        a.input("q", FLOAT, 1, seq, headDim);
        a.input("kt", FLOAT, 1, headDim, seq);
        a.input("v", FLOAT, 1, seq, headDim);
        String probs = a.op("Softmax", List.of(a.op("MatMul", List.of("q", "kt"))), axis(-1));
        a.output(a.op("MatMul", List.of(probs, "v")), "out", FLOAT, 1, seq, headDim);
        return a.model();
    }

    /** Masked attention (the text encoder's form): softmax(q·kᵀ + mask)·v, which is not fused. */
    public static ModelProto masked(int heads, int seq, int headDim) {
        AttentionGraphs a = new AttentionGraphs();
        a.input("q", FLOAT, heads, seq, headDim);
        a.input("k", FLOAT, heads, seq, headDim);
        a.input("v", FLOAT, heads, seq, headDim);
        a.input("mask", FLOAT, 1, seq, seq);
        String scores = a.op("MatMul", List.of("q", a.op("Transpose", List.of("k"), perm(0, 1, 3, 2))));
        String probs = a.op("Softmax", List.of(a.op("Add", List.of(scores, "mask"))), axis(-1));
        a.output(a.op("MatMul", List.of(probs, "v")), "out", FLOAT, heads, seq, headDim);
        return a.model();
    }

    /** No attention at all: out = q·k + v. */
    public static ModelProto noAttention(int heads, int seq) {
        AttentionGraphs a = new AttentionGraphs();
        a.input("q", FLOAT, heads, seq, seq);
        a.input("k", FLOAT, heads, seq, seq);
        a.input("v", FLOAT, heads, seq, seq);
        a.output(a.op("Add", List.of(a.op("MatMul", List.of("q", "k")), "v")), "out", FLOAT, heads, seq, seq);
        return a.model();
    }

    private void input(String name, int type, long... dims) {
        g.input(name, type, boxed(prepend1(dims)));
    }

    private void output(String from, String name, int type, long... dims) {
        g.node("Identity", List.of(from), name);
        g.output(name, type, boxed(prepend1(dims)));
    }

    private static long[] prepend1(long[] dims) {
        long[] d = new long[dims.length + 1];
        d[0] = 1;
        System.arraycopy(dims, 0, d, 1, dims.length);
        return d;
    }

    private static Object[] boxed(long[] dims) {
        return java.util.Arrays.stream(dims).boxed().toArray();
    }

    private String op(String type, List<String> inputs, AttributeProto... attrs) {
        return g.op(type, inputs, attrs);
    }

    private String scalar(float value, int type) {
        String name = "c" + next++;
        ByteBuffer b;
        if (type == FLOAT16) {
            b = ByteBuffer.allocate(2).order(ByteOrder.LITTLE_ENDIAN).putShort(Fp16Conversions.floatToFp16(value));
        } else {
            b = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putFloat(value);
        }
        g.initializer(PlainGraphBuilder.rawTensor(name, type, b.array()));
        return name;
    }

    private ModelProto model() {
        return g.model(8, 17);
    }

    static AttributeProto perm(long... p) {
        return PlainGraphBuilder.intsAttr("perm", p);
    }

    static AttributeProto axis(long a) {
        return PlainGraphBuilder.intAttr("axis", a);
    }

    static AttributeProto to(int type) {
        return PlainGraphBuilder.intAttr("to", type);
    }
}
