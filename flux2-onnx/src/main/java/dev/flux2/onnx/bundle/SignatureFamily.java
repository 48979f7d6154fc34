package dev.flux2.onnx.bundle;

/**
 * Which known export's tensor names a graph uses (docs/bundle-format.md §4, §8). The family only describes a graph:
 * the tensors fed are resolved from the graph's own names and types, and every family gets the same values.
 */
public enum SignatureFamily {
    /** The MarkShark2 q4 bundle's names: {@code input_ids, attention_mask → ctx}; {@code x, x_ids, timesteps, ctx,
     * ctx_ids → pred}; {@code z → …}; {@code image → z}. The danyalmalik transformer uses them too. */
    MARKSHARK2("markshark2"),
    /** hlhc's plain ONNX Runtime export: {@code input_ids, attention_mask → prompt_embeds}; {@code hidden_states,
     * encoder_hidden_states, timestep, img_ids, txt_ids → noise_pred}; {@code latents → image};
     * {@code image → latents}. */
    HLHC("hlhc"),
    /** Other names the contracts know (diffusers' {@code latent_sample}, {@code sample}, …), or a mix. */
    OTHER("other");

    private final String label;

    SignatureFamily(String label) {
        this.label = label;
    }

    /** @return the family's name as {@code flux2 info} prints it */
    public String label() {
        return label;
    }
}
