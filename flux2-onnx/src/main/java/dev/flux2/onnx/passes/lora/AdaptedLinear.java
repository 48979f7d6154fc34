package dev.flux2.onnx.passes.lora;

import java.util.List;

/**
 * A linear layer of the graph and the diffusers layers it computes: one, or q, k and v where the export fuses them
 * into one product (each part a range of the output's columns).
 *
 * @param linear the graph's linear node
 * @param parts the diffusers layers it computes, by column range
 */
public record AdaptedLinear(GraphLinear linear, List<Part> parts) {
    /** Copies the list. */
    public AdaptedLinear {
        parts = List.copyOf(parts);
    }

    /**
     * @param target the diffusers module path (e.g. {@code transformer_blocks.0.attn.to_q})
     * @param from the first output column it computes
     * @param to one past its last output column
     */
    public record Part(String target, int from, int to) {}
}
