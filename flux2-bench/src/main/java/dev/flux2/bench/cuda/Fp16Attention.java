package dev.flux2.bench.cuda;

import ai.onnx.proto.OnnxMl.AttributeProto;
import ai.onnx.proto.OnnxMl.GraphProto;
import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnx.proto.OnnxMl.NodeProto;
import ai.onnx.proto.OnnxMl.TensorProto;

/**
 * The bench's fp16 attention form: every {@code com.microsoft.MultiHeadAttention} of a graph fused by
 * {@link dev.flux2.onnx.attention.AttentionFuser} (which feeds the node fp32) gets its q, k and v cast to fp16 and
 * its output cast back to fp32, so that ONNX Runtime's CUDA kernel takes its fp16 paths (flash or cuDNN attention).
 * The casts stay in the graph: this is the simplest form, what a product pass must at least match.
 */
final class Fp16Attention {
    private static final int FLOAT = TensorProto.DataType.FLOAT_VALUE;
    private static final int FLOAT16 = TensorProto.DataType.FLOAT16_VALUE;

    private Fp16Attention() {}

    /**
     * @param model the rewritten graph
     * @param nodes how many attention nodes were switched to fp16
     */
    record Result(ModelProto model, int nodes) {}

    static Result apply(ModelProto model) {
        GraphProto.Builder g = model.getGraph().toBuilder().clearNode();
        int count = 0;
        for (NodeProto n : model.getGraph().getNodeList()) {
            if (!n.getOpType().equals("MultiHeadAttention") || !n.getDomain().equals("com.microsoft")) {
                g.addNode(n);
                continue;
            }
            NodeProto.Builder mha = n.toBuilder();
            for (int i = 0; i < Math.min(3, n.getInputCount()); i++) {
                String half = "fp16attn_" + count + "_in" + i;
                g.addNode(cast("fp16attn_" + count + "_cast_in" + i, n.getInput(i), half, FLOAT16));
                mha.setInput(i, half);
            }
            String out = n.getOutput(0);
            String half = "fp16attn_" + count + "_out";
            mha.setOutput(0, half);
            g.addNode(mha);
            g.addNode(cast("fp16attn_" + count + "_cast_out", half, out, FLOAT));
            count++;
        }
        return new Result(model.toBuilder().setGraph(g).build(), count);
    }

    private static NodeProto cast(String name, String in, String out, int to) {
        return NodeProto.newBuilder()
                .setName(name)
                .setOpType("Cast")
                .addInput(in)
                .addOutput(out)
                .addAttribute(AttributeProto.newBuilder()
                        .setName("to")
                        .setType(AttributeProto.AttributeType.INT)
                        .setI(to))
                .build();
    }
}
