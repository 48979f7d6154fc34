package dev.flux2.testkit.timing;

import java.util.List;

/**
 * The shape of a Qwen3 decoder used as FLUX.2's text encoder: what {@link FullSizeTextEncoderGraph} builds.
 *
 * @param layers decoder layers in the graph (the export stops at the last layer whose output the context takes)
 * @param hidden hidden size
 * @param heads query heads
 * @param kvHeads key/value heads (grouped-query attention)
 * @param headDim features per head
 * @param mlp intermediate size of the SwiGLU MLP
 * @param vocabulary rows of the token embedding
 * @param outputLayers 1-based layers whose outputs, concatenated, are the context ({@code context_dim} = hidden ×
 *     their count)
 */
public record TextEncoderShape(
        int layers,
        int hidden,
        int heads,
        int kvHeads,
        int headDim,
        int mlp,
        int vocabulary,
        List<Integer> outputLayers) {
    /** MatMulNBits per decoder layer: q, k, v, o, gate, up, down. */
    public static final int LINEARS_PER_LAYER = 7;

    /** Checks the shape. */
    public TextEncoderShape {
        outputLayers = List.copyOf(outputLayers);
        if (layers < 1 || hidden < 16 || heads < 1 || kvHeads < 1 || headDim < 2 || mlp < 16 || vocabulary < 1) {
            throw new IllegalArgumentException("TextEncoderShape: sizes must be positive, was "
                    + describe(layers, hidden, heads, kvHeads, headDim, mlp, vocabulary));
        }
        if (heads % kvHeads != 0 || headDim % 2 != 0) {
            throw new IllegalArgumentException(
                    "TextEncoderShape: heads must be a multiple of kvHeads and headDim even, was " + heads + "/"
                            + kvHeads + ", " + headDim);
        }
        if (hidden % 16 != 0 || mlp % 16 != 0 || (heads * headDim) % 16 != 0) {
            throw new IllegalArgumentException(
                    "TextEncoderShape: hidden, mlp and heads·headDim must be multiples of the 4-bit block (16)");
        }
        if (outputLayers.isEmpty()
                || outputLayers.stream().anyMatch(l -> l < 1 || l > layers)
                || outputLayers.get(outputLayers.size() - 1) != layers) {
            throw new IllegalArgumentException("TextEncoderShape.outputLayers must be in 1.." + layers
                    + " and end with the last layer, was " + outputLayers);
        }
    }

    /**
     * @return Qwen3-4B's width and the 27 layers of FLUX.2 [klein]'s export: hidden 2560, 32 query and 8 key/value
     *     heads of 128, MLP 9728, vocabulary 151936, the context from layers 9, 18 and 27 (7680 features); 189
     *     MatMulNBits as the seed config counts
     */
    public static TextEncoderShape qwen3For4b() {
        return new TextEncoderShape(27, 2560, 32, 8, 128, 9728, 151_936, List.of(9, 18, 27));
    }

    /** @return features per context row: hidden × output layers */
    public int contextDim() {
        return hidden * outputLayers.size();
    }

    /** @return the graph's MatMulNBits nodes */
    public int linearCount() {
        return layers * LINEARS_PER_LAYER;
    }

    private static String describe(int... v) {
        return java.util.Arrays.toString(v);
    }
}
