package dev.flux2.testkit;

import java.util.List;
import java.util.Optional;

/**
 * The graphs of a FLUX.2 [klein] bundle with their config keys and the real bundle's file names
 * (docs/bundle-format.md §6); the synthetic writer uses exactly these names.
 */
public enum BundleGraph {
    /** Qwen3 text encoder (q4, two external-data shards). */
    TEXT_ENCODER("text_encoder", "flux2-klein-4b-text-encoder-q4.onnx", "text-encoder-q4"),
    /** Per-step transformer (q4, two external-data shards). */
    TRANSFORMER("transformer", "flux2-klein-4b-transformer-q4.onnx", "transformer-q4"),
    /** Fused 4-step transformer; shares the transformer's manifest and shards. */
    TRANSFORMER_FUSED_4STEP(
            "transformer_fused_4step", "flux2-klein-4b-transformer-q4-fused-4step.onnx", "transformer-q4"),
    /** VAE decoder up to the mid-block attention (BN de-normalisation, unpatchify, q/kᵀ/v). */
    VAE_DECODER_PRE("vae_decoder_pre", "flux2-klein-4b-vae-decoder-pre-attn-fp16.onnx", null),
    /** One chunk of VAE mid-block attention rows. */
    VAE_DECODER_ATTN_CHUNK("vae_decoder_attn_chunk", "flux2-klein-4b-vae-decoder-attn-chunk-fp16.onnx", null),
    /** VAE decoder after the attention, stage 0. */
    VAE_DECODER_POST_STAGE_0("vae_decoder_post_stage_0", "flux2-klein-4b-vae-decoder-post-stage0-fp16.onnx", null),
    /** VAE decoder stage 1. */
    VAE_DECODER_POST_STAGE_1("vae_decoder_post_stage_1", "flux2-klein-4b-vae-decoder-post-stage1-fp16.onnx", null),
    /** VAE decoder stage 2. */
    VAE_DECODER_POST_STAGE_2("vae_decoder_post_stage_2", "flux2-klein-4b-vae-decoder-post-stage2-fp16.onnx", null),
    /** VAE decoder stage 3 (outputs {@code image}). */
    VAE_DECODER_POST_STAGE_3("vae_decoder_post_stage_3", "flux2-klein-4b-vae-decoder-post-stage3-fp16.onnx", null),
    /** VAE encoder (image → normalised patchified latent). */
    VAE_ENCODER("vae_encoder", "flux2-klein-4b-vae-encoder-fp16.onnx", null),
    /** Unified VAE decoder (z → image): pre, attention and post stages in one graph. */
    VAE_DECODER("vae_decoder", "flux2-klein-4b-vae-decoder-fp16.onnx", null),
    /** Single post-attention graph (residual + attention → image): post stages 0..3 in one graph. */
    VAE_DECODER_POST("vae_decoder_post", "flux2-klein-4b-vae-decoder-post-fp16.onnx", null);

    private final String key;
    private final String fileName;
    private final String shardStem;

    BundleGraph(String key, String fileName, String shardStem) {
        this.key = key;
        this.fileName = fileName;
        this.shardStem = shardStem;
    }

    /** @return the key under {@code models} in {@code flux2-config.json} */
    public String key() {
        return key;
    }

    /** @return the graph file name */
    public String fileName() {
        return fileName;
    }

    /**
     * @return the graph's file name in hlhc's export ({@code text_encoder.onnx}, {@code transformer.onnx},
     *     {@code vae_decoder.onnx}, {@code vae_encoder.onnx}; the config key plus {@code .onnx} for the others)
     */
    public String hlhcFileName() {
        return key + ".onnx";
    }

    /** @return the manifest file name, if the graph keeps its weights in external-data shards */
    public Optional<String> manifestName() {
        return shardStem == null ? Optional.empty() : Optional.of(shardStem + "-manifest.json");
    }

    /** @return the two external-data shard file names in manifest order (empty for inline graphs) */
    public List<String> shardNames() {
        return shardStem == null ? List.of() : List.of(shardStem + "-00001.onnx_data", shardStem + "-00002.onnx_data");
    }

    /**
     * @param key a config key such as {@code vae_decoder_post_stage_2}
     * @return the graph
     * @throws IllegalArgumentException for an unknown key
     */
    public static BundleGraph fromKey(String key) {
        for (BundleGraph g : values()) {
            if (g.key.equals(key)) {
                return g;
            }
        }
        throw new IllegalArgumentException("unknown graph key '" + key + "'");
    }

    /**
     * @param stage 0..3
     * @return the VAE post stage graph
     */
    public static BundleGraph postStage(int stage) {
        switch (stage) {
            case 0:
                return VAE_DECODER_POST_STAGE_0;
            case 1:
                return VAE_DECODER_POST_STAGE_1;
            case 2:
                return VAE_DECODER_POST_STAGE_2;
            case 3:
                return VAE_DECODER_POST_STAGE_3;
            default:
                throw new IllegalArgumentException("VAE post stage must be 0..3, was " + stage);
        }
    }
}
