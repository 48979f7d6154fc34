package dev.flux2.onnx.bundle;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Which graphs decode latents (docs/bundle-format.md §3.3, §10): the single graph {@code models.vae_decoder}, or the
 * split chain {@code vae_decoder_pre} → {@code vae_decoder_attn_chunk} → post graphs, where the post graphs are the
 * stages of {@code vae_decoder_post_stage_keys} or the single {@code models.vae_decoder_post}.
 *
 * @param unified whether the single-graph decoder is used
 * @param postKeys for the split chain, the post graphs in run order; empty when unified
 */
public record DecoderLayout(boolean unified, List<String> postKeys) {

    /** Copies and validates. */
    public DecoderLayout {
        postKeys = List.copyOf(postKeys);
        if (unified != postKeys.isEmpty()) {
            throw new IllegalArgumentException("a unified decoder has no post stages, a split one needs some");
        }
    }

    /** @return the layout using {@code models.vae_decoder} */
    public static DecoderLayout single() {
        return new DecoderLayout(true, List.of());
    }

    /**
     * @param postKeys the post graphs in run order
     * @return the split layout
     */
    public static DecoderLayout split(List<String> postKeys) {
        return new DecoderLayout(false, Objects.requireNonNull(postKeys, "postKeys"));
    }

    /** @return the config keys of every decoder graph, in run order */
    public List<String> graphKeys() {
        if (unified) {
            return List.of(GraphKeys.VAE_DECODER);
        }
        List<String> keys = new ArrayList<>(List.of(GraphKeys.VAE_DECODER_PRE, GraphKeys.VAE_DECODER_ATTN_CHUNK));
        keys.addAll(postKeys);
        return List.copyOf(keys);
    }
}
