package dev.flux2.api;

/**
 * The parts a FLUX.2 [klein] model is made of. A backend finds each part in the model folder by what it is (for the
 * ONNX backend: by each graph's signature, not by its file name), and {@link dev.flux2.Flux2Pipeline.Builder#component} can
 * take any part from another folder or file instead, for example a transformer of another precision beside the text
 * encoder and VAE of a complete bundle.
 */
public enum ModelRole {
    /** The prompt tokenizer (for the ONNX backend: a folder with {@code tokenizer.json} and
     * {@code tokenizer_config.json}). Required. */
    TOKENIZER,
    /** The text encoder: token ids and mask → the text context. Required. */
    TEXT_ENCODER,
    /** The denoiser (the FLUX.2 transformer): one step per call, optionally with a fused multi-step graph beside it.
     * Required. */
    DENOISER,
    /** The VAE decoder: the normalised, patchified latent → the image (one graph, or a split chain). Required. */
    VAE_DECODER,
    /** The VAE encoder: an image → its normalised, patchified latent. Optional; init and reference images need it. */
    VAE_ENCODER;

    /**
     * @param text a role name, case-insensitive, with {@code -} or {@code _} between words ({@code text-encoder},
     *     {@code VAE_DECODER}); {@code transformer} is accepted for {@link #DENOISER}
     * @return the role
     * @throws InvalidRequestException naming the text and the accepted names
     */
    public static ModelRole parse(String text) {
        String key = text == null ? "" : text.trim().replace('-', '_').toUpperCase(java.util.Locale.ROOT);
        if (key.equals("TRANSFORMER")) {
            return DENOISER;
        }
        for (ModelRole r : values()) {
            if (r.name().equals(key)) {
                return r;
            }
        }
        throw new InvalidRequestException("unknown model role '" + text + "'; the roles are tokenizer, text-encoder, "
                + "denoiser (or transformer), vae-decoder and vae-encoder");
    }

    /** @return the role's name in lower case with hyphens, as the CLI writes it ({@code text-encoder}) */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
}
