package dev.flux2.api;

/** How a live preview ({@link Preview}) turns the predicted clean latent of a denoiser step into pixels. */
public enum PreviewMode {
    /**
     * A linear projection of the 128 latent channels of each token to the RGB of its 2×2 sub-blocks, fitted once per
     * pipeline to the model's own VAE decoder (least squares on decoded random latents): an image of a sixteenth of
     * the pixels (W/8 × H/8), blurred and colour-approximate, in about a millisecond at 512².
     */
    LINEAR,
    /**
     * The full VAE decode of the predicted clean latent: exact (the image the generation would return if it stopped
     * here), as costly as the final decode, so ask for it every few steps.
     */
    VAE
}
