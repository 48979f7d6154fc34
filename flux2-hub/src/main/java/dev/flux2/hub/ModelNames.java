package dev.flux2.hub;

/**
 * Models on the hub that the SDK knows by name: the pinned default bundle (whose files, sizes and BLAKE3 digests
 * {@link KnownBundles#shipped()} lists) and the plain ONNX Runtime export. Each is a repo id for
 * {@code Flux2Pipeline.builder().model(String)}, {@link ModelHub} or the {@code flux2} command's {@code --model}.
 */
public final class ModelNames {
    /** The repository of {@link #DEFAULT_MODEL}. */
    public static final String DEFAULT_MODEL_REPO = "MarkShark2/flux2-klein-4b-onnx-webgpu-q4";

    /** The pinned commit of {@link #DEFAULT_MODEL}. */
    public static final String DEFAULT_MODEL_COMMIT = "929085adfad60491e9af05095cd280955fc0c29d";

    /**
     * The default model: the public q4 ONNX bundle of FLUX.2 [klein] 4B at the pinned commit whose files (sizes
     * and BLAKE3 digests) the SDK ships and checks. 18 files, 5,225,022,190 bytes (4.87 GiB).
     */
    public static final String DEFAULT_MODEL = DEFAULT_MODEL_REPO + "@" + DEFAULT_MODEL_COMMIT;

    /**
     * The plain ONNX Runtime export of FLUX.2 [klein] 4B by hlhc (float32 activations, int4 text encoder, int8
     * transformer, one external-data file per graph, one VAE decoder graph and a VAE encoder), branch {@code main}:
     * suited to CPU, CUDA and DirectML. It has no {@code flux2-config.json}; its parts are found by their graphs'
     * signatures. Not pinned: its files are checked against the hub's hashes, not against a shipped list.
     */
    public static final String HLHC_MODEL = "hlhc/FLUX.2-klein-4B-onnx";

    private ModelNames() {}
}
