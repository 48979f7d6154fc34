package dev.flux2.onnx.bundle;

import java.util.Set;

/**
 * The element types each kind of graph tensor may have. The graph declares which one it uses (docs/bundle-format.md §4:
 * the graph's own signature is authoritative), and every stage feeds and reads exactly that type.
 */
final class TypeSets {
    /** Float activations (latents, context, σ, VAE tensors): fp16 in the seed bundle, fp32 in others. */
    public static final Set<ElementType> FLOATS =
            Set.of(ElementType.FLOAT16, ElementType.FLOAT, ElementType.BFLOAT16, ElementType.DOUBLE);
    /** Position ids: fp32 in the seed bundle, int64 in diffusers-style exports. */
    public static final Set<ElementType> IDS =
            Set.of(ElementType.FLOAT, ElementType.FLOAT16, ElementType.DOUBLE, ElementType.INT64, ElementType.INT32);
    /** Token ids, attention mask and position ids of the text encoder. */
    public static final Set<ElementType> TOKENS = Set.of(ElementType.INT64, ElementType.INT32);

    private TypeSets() {}
}
