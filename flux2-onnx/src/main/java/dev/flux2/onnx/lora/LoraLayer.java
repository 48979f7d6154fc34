package dev.flux2.onnx.lora;

/**
 * The low-rank update of one linear layer of the transformer, as diffusers' PEFT layer applies it:
 * {@code y = base(x) + scale · (x · downᵀ) · upᵀ}.
 *
 * @param target the layer's module path in diffusers' {@code Flux2Transformer2DModel} (e.g.
 *     {@code transformer_blocks.0.attn.to_q}), checked by {@link KleinLoraTargets}
 * @param rank the rank r
 * @param inFeatures the layer's input width
 * @param outFeatures the layer's output width
 * @param down {@code lora_A}, r × in, row-major
 * @param up {@code lora_B}, out × r, row-major
 * @param scale the file's own scale for this layer (alpha / r, or 1 where the format folds it into the factors);
 *     the user's adapter scale multiplies it
 */
public record LoraLayer(
        String target, int rank, int inFeatures, int outFeatures, float[] down, float[] up, double scale) {
    /** Checks the factor sizes. */
    public LoraLayer {
        if (down.length != (long) rank * inFeatures || up.length != (long) outFeatures * rank) {
            throw new IllegalArgumentException("factor sizes do not match rank " + rank + ", in " + inFeatures
                    + ", out " + outFeatures + " for " + target);
        }
    }
}
