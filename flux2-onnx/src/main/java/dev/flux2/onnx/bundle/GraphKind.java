package dev.flux2.onnx.bundle;

import dev.flux2.api.ModelRole;

/** What a single graph can be, as recognised from its signature; each belongs to one {@link ModelRole}. */
public enum GraphKind {
    /** Token ids and mask → text context. */
    TEXT_ENCODER(ModelRole.TEXT_ENCODER, GraphKeys.TEXT_ENCODER, "text encoder"),
    /** One denoising step: latent tokens, ids, timestep, context → velocity. */
    DENOISER(ModelRole.DENOISER, GraphKeys.TRANSFORMER, "denoiser"),
    /** Several Euler steps in one call: latent tokens, ids, context, schedule → final latent tokens. */
    FUSED_DENOISER(ModelRole.DENOISER, GraphKeys.TRANSFORMER_FUSED, "fused multi-step denoiser"),
    /** One graph from the normalised, patchified latent to the image. */
    VAE_DECODER(ModelRole.VAE_DECODER, GraphKeys.VAE_DECODER, "VAE decoder"),
    /** Image → normalised, patchified latent. */
    VAE_ENCODER(ModelRole.VAE_ENCODER, GraphKeys.VAE_ENCODER, "VAE encoder");

    private final ModelRole modelRole;
    private final String key;
    private final String label;

    GraphKind(ModelRole modelRole, String key, String label) {
        this.modelRole = modelRole;
        this.key = key;
        this.label = label;
    }

    /** @return the part of the model this graph plays */
    public ModelRole modelRole() {
        return modelRole;
    }

    /** @return the {@code models} key the backend runs the graph under */
    public String key() {
        return key;
    }

    /** @return a readable name */
    public String label() {
        return label;
    }
}
