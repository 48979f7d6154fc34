package dev.flux2.onnx.passes;

import ai.onnx.proto.OnnxMl.NodeProto;
import java.util.Optional;

/**
 * One attention block the {@link MhaMatcher} found: the nodes it replaces (indices into the graph, -1 when absent)
 * and what the fused node is fed.
 *
 * @param softmax the Softmax
 * @param scoresMatMul q·kᵀ
 * @param scoreScaleNode the scalar Mul or Div on the scores, or -1
 * @param castNode the Cast of the probabilities, or -1
 * @param outMatMul ·v
 * @param q q, its scalar scale folded
 * @param qSlice the Slice q is seen through, re-applied to the unscaled value
 * @param k k (or kᵀ when not {@code kTransposed}), its scalar scale folded
 * @param kSlice the Slice k is seen through
 * @param kTransposed whether kᵀ is a Transpose of k (else kᵀ is transposed back)
 * @param ktRank kᵀ's rank when not {@code kTransposed}
 * @param v v
 * @param output the attention output
 * @param outputType its element type
 * @param qType q's element type
 * @param kType k's element type
 * @param vType v's element type
 * @param scale the folded scale
 */
record MhaBlock(
        int softmax,
        int scoresMatMul,
        int scoreScaleNode,
        int castNode,
        int outMatMul,
        String q,
        Optional<NodeProto> qSlice,
        String k,
        Optional<NodeProto> kSlice,
        boolean kTransposed,
        int ktRank,
        String v,
        String output,
        int outputType,
        int qType,
        int kType,
        int vType,
        double scale) {}
