package dev.flux2.onnx.graph;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The resolved split VAE decoder chain: pre-attention stage, attention chunk, post stages in run order.
 *
 * @param z the pre stage's latent input [1, 128, H/16, W/16]
 * @param residual the pre stage's residual output name
 * @param q the pre stage's query output [1, 1, S, d]
 * @param kt the pre stage's transposed-key output name [1, 1, d, S]
 * @param v the pre stage's value output name [1, 1, S, d]
 * @param attention the attention-chunk graph
 * @param post the post-attention stages, in run order
 */
public record VaeDecoderIo(TensorSignature z, String residual, TensorSignature q, String kt, String v,
        Attention attention, List<PostStage> post) {

    /** Copies. */
    public VaeDecoderIo {
        Objects.requireNonNull(z, "z");
        Objects.requireNonNull(residual, "residual");
        Objects.requireNonNull(q, "q");
        Objects.requireNonNull(kt, "kt");
        Objects.requireNonNull(v, "v");
        Objects.requireNonNull(attention, "attention");
        post = List.copyOf(post);
        if (post.isEmpty()) {
            throw new IllegalArgumentException("the VAE decoder needs at least one post stage");
        }
    }

    /**
     * The attention-chunk graph.
     *
     * @param qChunk the query-rows input [1, 1, C, d]
     * @param kt the transposed-key input name
     * @param v the value input name
     * @param output the attention output [1, 1, C, d]
     */
    public record Attention(TensorSignature qChunk, String kt, String v, TensorSignature output) {
        /** Checks for nulls. */
        public Attention {
            Objects.requireNonNull(qChunk, "qChunk");
            Objects.requireNonNull(kt, "kt");
            Objects.requireNonNull(v, "v");
            Objects.requireNonNull(output, "output");
        }

        /** @return the fixed chunk row count, or -1 when the graph leaves it free */
        public long fixedChunkRows() {
            return qChunk.dim(2).value();
        }
    }

    /**
     * One post-attention stage.
     *
     * @param key the config key
     * @param residualInput the input taking the pre stage's residual (first stage only)
     * @param input the input taking the attention result (first stage) or the previous stage's output
     * @param output the output fed to the next stage (the last stage's is the image)
     */
    public record PostStage(String key, Optional<String> residualInput, String input, String output) {
        /** Checks for nulls. */
        public PostStage {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(residualInput, "residualInput");
            Objects.requireNonNull(input, "input");
            Objects.requireNonNull(output, "output");
        }
    }
}
