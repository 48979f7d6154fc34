package dev.flux2.onnx.bundle;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The resolved split VAE decoder chain (docs/bundle-format.md §10): pre-attention stage, attention chunk, then post
 * stages in run order (the {@code vae_decoder_post_stage_keys} stages, or the single {@code vae_decoder_post} graph).
 * Every tensor keeps the element type its graph declares; the chain converts where a consumer declares another type.
 *
 * @param preKey the pre stage's config key
 * @param z the pre stage's latent input [1, 128, H/16, W/16]
 * @param residual the pre stage's residual output [1, C, H/8, W/8]
 * @param q the pre stage's query output [1, 1, S, d]
 * @param kt the pre stage's transposed-key output [1, 1, d, S]
 * @param v the pre stage's value output [1, 1, S, d]
 * @param attention the attention-chunk graph
 * @param post the post-attention stages, in run order; the last one outputs the image
 */
public record VaeDecoderIo(
        String preKey,
        TensorSignature z,
        TensorSignature residual,
        TensorSignature q,
        TensorSignature kt,
        TensorSignature v,
        Attention attention,
        List<PostStage> post)
        implements DecoderIo {

    /** Copies. */
    public VaeDecoderIo {
        Objects.requireNonNull(preKey, "preKey");
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

    @Override
    public List<String> graphKeys() {
        List<String> keys = new ArrayList<>(List.of(preKey, attention.key()));
        post.forEach(p -> keys.add(p.key()));
        return List.copyOf(keys);
    }

    /**
     * The attention-chunk graph.
     *
     * @param key the config key
     * @param qChunk the query-rows input [1, 1, C, d]
     * @param kt the transposed-key input [1, 1, d, S]
     * @param v the value input [1, 1, S, d]
     * @param output the attention output [1, 1, C, d]
     */
    public record Attention(
            String key, TensorSignature qChunk, TensorSignature kt, TensorSignature v, TensorSignature output) {
        /** Checks for nulls. */
        public Attention {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(qChunk, "qChunk");
            Objects.requireNonNull(kt, "kt");
            Objects.requireNonNull(v, "v");
            Objects.requireNonNull(output, "output");
        }

        /** @return the fixed chunk row count, or -1 when the graph leaves it free */
        public long fixedChunkRows() {
            return qChunk.rank() == 4 ? qChunk.dim(2).value() : -1; // unknown rank: free
        }
    }

    /** Where a post stage's input comes from. */
    public enum SourceKind {
        /** The pre stage's residual output. */
        RESIDUAL,
        /** The assembled attention result [1, 1, S, d]. */
        ATTENTION,
        /** An output of an earlier post stage. */
        STAGE
    }

    /**
     * The producer of a post stage input.
     *
     * @param kind residual, attention or an earlier stage
     * @param stage for STAGE: the producing stage's index, else -1
     * @param output for STAGE: the producing output's name, else empty
     * @param type the element type the producer delivers
     */
    public record Source(SourceKind kind, int stage, String output, ElementType type) {
        /** Checks consistency. */
        public Source {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(output, "output");
            Objects.requireNonNull(type, "type");
            if ((kind == SourceKind.STAGE) != (stage >= 0)) {
                throw new IllegalArgumentException("only STAGE sources name a stage");
            }
        }
    }

    /**
     * One input of a post stage and what feeds it.
     *
     * @param input the input as the stage's graph declares it
     * @param source its producer
     */
    public record Feed(TensorSignature input, Source source) {
        /** Checks for nulls. */
        public Feed {
            Objects.requireNonNull(input, "input");
            Objects.requireNonNull(source, "source");
        }
    }

    /**
     * One post-attention stage.
     *
     * @param key the config key
     * @param feeds every input of the graph with its producer
     * @param outputs the outputs later stages read (for the last stage: the image), in the graph's order
     */
    public record PostStage(String key, List<Feed> feeds, List<TensorSignature> outputs) {
        /** Copies. */
        public PostStage {
            Objects.requireNonNull(key, "key");
            feeds = List.copyOf(feeds);
            outputs = List.copyOf(outputs);
        }
    }
}
