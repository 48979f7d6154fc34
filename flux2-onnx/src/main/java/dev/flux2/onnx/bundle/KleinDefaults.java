package dev.flux2.onnx.bundle;

/**
 * What FLUX.2 [klein] 4B is when no {@code flux2-config.json} says otherwise (docs/pipeline-reference.md §2,
 * docs/bundle-format.md §3): 512 text tokens of 7680 features, the distilled model's 4 steps and guidance 1, and
 * diffusers' default size of 1024×1024. Sizes a graph fixes take precedence over these (the layout resolver reads
 * them from the graphs).
 */
final class KleinDefaults {
    /** Text tokens the encoder takes ({@code text_seq_len}). */
    public static final int TEXT_SEQ_LEN = 512;
    /** Features per context row: three Qwen3-4B hidden states of 2560 ({@code context_dim}). */
    public static final int CONTEXT_DIM = 7680;
    /** Default output width and height in pixels (diffusers' {@code Flux2KleinPipeline} default). */
    public static final int SIZE = 1024;
    /** Denoising steps of the distilled model. */
    public static final int STEPS = 4;
    /** Guidance of the distilled model (not used by it). */
    public static final double GUIDANCE = 1.0;
    /** The tokenizer folder, relative to the bundle folder. */
    public static final String TOKENIZER_DIR = "tokenizer";
    /** The model name of a bundle described by its graphs. */
    public static final String MODEL_NAME = "flux.2-klein-4b";
    /** The model name a {@code flux2-config.json} without {@code model_name} gets. */
    static final String CONFIG_MODEL_NAME = "flux.2-klein";

    private KleinDefaults() {}

    /**
     * @param variant the variant label
     * @return the distilled klein 4B defaults under that label
     */
    public static ModelDefaults defaults(String variant) {
        return new ModelDefaults(MODEL_NAME, variant, true, STEPS, GUIDANCE, SIZE, SIZE);
    }
}
