package dev.flux2.onnx.bundle;

import java.util.List;

/**
 * The tensor names known FLUX.2 [klein] exports give each part of each graph (docs/bundle-format.md §8 to §11),
 * preferred first: the MarkShark2 q4 bundle's ({@code ctx}, {@code x}, {@code timesteps}, {@code z}, …) and hlhc's
 * plain ONNX Runtime export's ({@code prompt_embeds}, {@code hidden_states}, {@code timestep}, {@code latents}, …),
 * plus the names diffusers uses. The contracts resolve a graph's tensors with these lists and the layout resolver
 * recognises a graph's role by them, so a graph recognised as a role is one its contract can resolve.
 */
final class KnownNames {
    /** Text encoder: token ids. */
    public static final List<String> TOKEN_IDS = List.of("input_ids", "ids", "tokens");
    /** Text encoder: attention mask. */
    public static final List<String> ATTENTION_MASK = List.of("attention_mask", "mask");
    /** Text encoder: position ids. */
    public static final List<String> POSITION_IDS = List.of("position_ids");
    /** Text encoder output: the text context. */
    public static final List<String> TEXT_CONTEXT_OUT = List.of("ctx", "prompt_embeds", "encoder_hidden_states");
    /** Denoiser: the latent tokens. */
    public static final List<String> LATENT_TOKENS = List.of("x", "hidden_states");
    /** Denoiser: the position ids of the latent tokens. */
    public static final List<String> IMAGE_IDS = List.of("x_ids", "img_ids");
    /** Denoiser: the timestep (σ, as diffusers passes it to its transformer). */
    public static final List<String> TIMESTEP = List.of("timesteps", "timestep");
    /** Denoiser: the text context. */
    public static final List<String> TEXT_CONTEXT_IN = List.of("ctx", "encoder_hidden_states");
    /** Denoiser: the text position ids. */
    public static final List<String> TEXT_IDS = List.of("ctx_ids", "txt_ids");
    /** Denoiser output: the velocity. */
    public static final List<String> VELOCITY = List.of("pred", "noise_pred");
    /** Fused denoiser output: the final latent tokens. */
    public static final List<String> FINAL_LATENT = List.of("latent");
    /** VAE decoder input and VAE encoder output: the normalised, patchified latent. */
    public static final List<String> LATENT = List.of("z", "latents", "latent", "latent_sample");
    /** VAE decoder output: the image. */
    public static final List<String> IMAGE_OUT = List.of("image", "sample", "images");
    /** VAE encoder input: the image. */
    public static final List<String> IMAGE_IN = List.of("image", "sample", "pixel_values");

    private KnownNames() {}
}
