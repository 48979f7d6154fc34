package dev.flux2.testkit;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a synthetic bundle looks like: sizes, optional graphs, variant and failure-test overrides. Immutable;
 * create it with {@link #builder()}.
 */
public final class SyntheticBundleSpec {
    /** The seed used when none is given. */
    public static final long DEFAULT_SEED = 0x5EED_F1F2_0001L;
    /** Upper bound of {@link Builder#transformerPaddingBytes}: keeps each shard below 2³¹ bytes. */
    public static final long MAX_PADDING_BYTES = 1L << 31;

    private final int textSequenceLength;
    private final int contextDim;
    private final int defaultWidth;
    private final int defaultHeight;
    private final int vaeChunkSize;
    private final int vaeHeadDim;
    private final FusedConvention fused;
    private final boolean vaeEncoder;
    private final boolean distilled;
    private final Path tokenizerSource;
    private final long transformerPaddingBytes;
    private final long seed;
    private final Map<BundleGraph, Map<String, String>> renames;
    private final Map<BundleGraph, Map<String, TensorElementType>> inputTypes;
    private final TensorElementType activationType;
    private final Map<BundleGraph, TensorElementType> graphActivationTypes;
    private final TensorElementType idType;
    private final TensorElementType tokenType;
    private final VaeDecoderLayout decoderLayout;
    private final float contextClip;
    private final Set<BundleVariant> variants;
    private final ExportLayout layout;
    private final QuantSpec textEncoderQuant;
    private final QuantSpec transformerQuant;

    private SyntheticBundleSpec(Builder b) {
        this.textSequenceLength = b.textSequenceLength;
        this.contextDim = b.contextDim;
        this.defaultWidth = b.defaultWidth;
        this.defaultHeight = b.defaultHeight;
        this.vaeChunkSize = b.vaeChunkSize;
        this.vaeHeadDim = b.vaeHeadDim;
        this.fused = b.fused;
        this.vaeEncoder = b.vaeEncoder;
        this.distilled = b.distilled;
        this.tokenizerSource = b.tokenizerSource != null ? b.tokenizerSource : TokenizerFixture.directory();
        this.transformerPaddingBytes = b.transformerPaddingBytes;
        this.seed = b.seed;
        this.renames = freeze(b.renames);
        this.inputTypes = freeze(b.inputTypes);
        this.activationType = b.activationType;
        this.graphActivationTypes = Collections.unmodifiableMap(new EnumMap<>(b.graphActivationTypes));
        this.idType = b.idType;
        this.tokenType = b.tokenType;
        this.decoderLayout = b.decoderLayout;
        this.contextClip = b.contextClip;
        this.variants = Collections.unmodifiableSet(
                b.variants.isEmpty() ? EnumSet.noneOf(BundleVariant.class) : EnumSet.copyOf(b.variants));
        this.layout = b.layout;
        this.textEncoderQuant = b.textEncoderQuant;
        this.transformerQuant = b.transformerQuant;
    }

    /** @return the export whose files, names and dtypes the bundle imitates */
    public ExportLayout layout() {
        return layout;
    }

    /** @return how the text encoder's MatMulNBits weight is quantized */
    public QuantSpec textEncoderQuant() {
        return textEncoderQuant;
    }

    /** @return how the transformer's MatMulNBits weight is quantized */
    public QuantSpec transformerQuant() {
        return transformerQuant;
    }

    /** @return the per-token features of the text encoder, its MatMulNBits K: 32, or one block when larger */
    public int textFeatures() {
        return Math.max(SyntheticDims.TEXT_FEATURES, textEncoderQuant.blockSize());
    }

    /**
     * @param graph a bundle graph
     * @return its file name in this bundle's layout
     */
    public String fileName(BundleGraph graph) {
        return layout == ExportLayout.HLHC ? graph.hlhcFileName() : graph.fileName();
    }

    /**
     * @param graph a bundle graph
     * @return its external-data files: two shards in the MarkShark2 layout (for the text encoder and the
     *     transformers), {@code <graph>.onnx.data} for every graph in hlhc's
     */
    public List<String> shardNames(BundleGraph graph) {
        return layout == ExportLayout.HLHC ? List.of(fileName(graph) + ".data") : graph.shardNames();
    }

    /** @return a builder with the defaults listed on its setters */
    public static Builder builder() {
        return new Builder();
    }

    /** @return config {@code text_seq_len}: text tokens per prompt */
    public int textSequenceLength() {
        return textSequenceLength;
    }

    /** @return config {@code context_dim}: channels of the text encoder's {@code ctx} */
    public int contextDim() {
        return contextDim;
    }

    /** @return config {@code default_width} */
    public int defaultWidth() {
        return defaultWidth;
    }

    /** @return config {@code default_height} */
    public int defaultHeight() {
        return defaultHeight;
    }

    /** @return config {@code chunk_size} of the attention-chunk graph */
    public int vaeChunkSize() {
        return vaeChunkSize;
    }

    /** @return config {@code head_dim} of the attention-chunk graph (hd) */
    public int vaeHeadDim() {
        return vaeHeadDim;
    }

    /** @return which fused 4-step graph is written, if any */
    public FusedConvention fused() {
        return fused;
    }

    /** @return whether a {@code vae_encoder} is written (config {@code supports_img2img}) */
    public boolean vaeEncoder() {
        return vaeEncoder;
    }

    /** @return whether the variant is the distilled one (4 steps, guidance 1) rather than base (50 steps, 4.0) */
    public boolean distilled() {
        return distilled;
    }

    /** @return config {@code num_steps}: 4 when distilled, 50 for the base variant */
    public int numSteps() {
        return distilled ? 4 : 50;
    }

    /** @return config {@code guidance}: 1.0 when distilled, 4.0 for the base variant */
    public double guidance() {
        return distilled ? 1.0 : 4.0;
    }

    /** @return config {@code model_variant}: contains "distilled" or "base" */
    public String modelVariant() {
        return distilled ? "klein-4b-distilled-onnx-webgpu-q4-synthetic" : "klein-4b-base-onnx-webgpu-q4-synthetic";
    }

    /** @return the tokenizer directory whose regular files are copied into {@code <bundle>/tokenizer/} */
    public Path tokenizerSource() {
        return tokenizerSource;
    }

    /** @return the minimum number of extra transformer weight bytes (0 = none) */
    public long transformerPaddingBytes() {
        return transformerPaddingBytes;
    }

    /**
     * @return output columns of the padding MatMulNBits: the requested bytes rounded up to whole columns of
     *         {@link SyntheticDims#PADDING_BYTES_PER_COLUMN}
     */
    public long paddingColumns() {
        return (transformerPaddingBytes + SyntheticDims.PADDING_BYTES_PER_COLUMN - 1)
                / SyntheticDims.PADDING_BYTES_PER_COLUMN;
    }

    /** @return the seed every synthetic weight is derived from */
    public long seed() {
        return seed;
    }

    /**
     * @param graph a bundle graph
     * @return the element type of its float activations (inputs, outputs and, in fused or merged graphs, the
     *     internal tensors that would sit between graphs): the per-graph override, else
     *     {@link Builder#activationType}
     */
    public TensorElementType activationType(BundleGraph graph) {
        return graphActivationTypes.getOrDefault(graph, activationType);
    }

    /** @return the element type of {@code x_ids} and {@code ctx_ids} */
    public TensorElementType idType() {
        return idType;
    }

    /** @return the element type of the text encoder's integer inputs (ids, mask, position ids) */
    public TensorElementType tokenType() {
        return tokenType;
    }

    /** @return which VAE decoder graphs the bundle has */
    public VaeDecoderLayout decoderLayout() {
        return decoderLayout;
    }

    /** @return config {@code context_clip} (0 = off) */
    public float contextClip() {
        return contextClip;
    }

    /**
     * @param variant a layout variant
     * @return whether this spec writes it
     */
    public boolean has(BundleVariant variant) {
        return variants.contains(variant);
    }

    /** @return the graphs this bundle contains, in config order */
    public List<BundleGraph> graphs() {
        List<BundleGraph> list = new ArrayList<>();
        for (BundleGraph g : BundleGraph.values()) {
            if (contains(g)) {
                list.add(g);
            }
        }
        return List.copyOf(list);
    }

    /**
     * @param graph a bundle graph
     * @return whether this spec writes it
     */
    public boolean contains(BundleGraph graph) {
        if (graph == BundleGraph.TRANSFORMER_FUSED_4STEP) {
            return fused != FusedConvention.NONE;
        }
        if (graph == BundleGraph.VAE_ENCODER) {
            return vaeEncoder;
        }
        boolean split = decoderLayout == VaeDecoderLayout.SPLIT
                || decoderLayout == VaeDecoderLayout.UNIFIED_AND_SPLIT
                || decoderLayout == VaeDecoderLayout.SINGLE_POST;
        return switch (graph) {
            case VAE_DECODER ->
                decoderLayout == VaeDecoderLayout.UNIFIED || decoderLayout == VaeDecoderLayout.UNIFIED_AND_SPLIT;
            case VAE_DECODER_POST -> decoderLayout == VaeDecoderLayout.SINGLE_POST;
            case VAE_DECODER_PRE, VAE_DECODER_ATTN_CHUNK -> split;
            case VAE_DECODER_POST_STAGE_0,
                    VAE_DECODER_POST_STAGE_1,
                    VAE_DECODER_POST_STAGE_2,
                    VAE_DECODER_POST_STAGE_3 -> split && decoderLayout != VaeDecoderLayout.SINGLE_POST;
            default -> true;
        };
    }

    /**
     * @param graphKey a config key
     * @return the input names the config lists for that graph (the real names; renames affect only the file)
     */
    public List<String> inputNames(String graphKey) {
        return names(GraphSignatures.inputs(present(graphKey), this));
    }

    /**
     * @param graphKey a config key
     * @return the output names of that graph
     */
    public List<String> outputNames(String graphKey) {
        return names(GraphSignatures.outputs(present(graphKey), this));
    }

    /**
     * @param graphKey a config key
     * @return config input name → name written into the graph file, for the inputs {@code renameInput} changed
     */
    public Map<String, String> renamedInputs(String graphKey) {
        return renames.getOrDefault(BundleGraph.fromKey(graphKey), Map.of());
    }

    /**
     * @param graphKey a config key
     * @return config input name → element type written into the graph file, for overridden inputs
     */
    public Map<String, TensorElementType> inputElementTypes(String graphKey) {
        return inputTypes.getOrDefault(BundleGraph.fromKey(graphKey), Map.of());
    }

    private BundleGraph present(String graphKey) {
        BundleGraph g = BundleGraph.fromKey(graphKey);
        if (!contains(g)) {
            throw new IllegalArgumentException("graph '" + graphKey + "' is not part of this bundle spec");
        }
        return g;
    }

    private static List<String> names(List<Port> ports) {
        List<String> names = new ArrayList<>(ports.size());
        for (Port p : ports) {
            names.add(p.name());
        }
        return List.copyOf(names);
    }

    private static <V> Map<BundleGraph, Map<String, V>> freeze(Map<BundleGraph, Map<String, V>> source) {
        Map<BundleGraph, Map<String, V>> copy = new EnumMap<>(BundleGraph.class);
        source.forEach((k, v) -> copy.put(k, Collections.unmodifiableMap(new LinkedHashMap<>(v))));
        return Collections.unmodifiableMap(copy);
    }

    @Override
    public String toString() {
        return "SyntheticBundleSpec[" + layout + ", text " + textSequenceLength + "x" + contextDim + ", " + defaultWidth
                + "x"
                + defaultHeight + ", chunk " + vaeChunkSize + ", hd " + vaeHeadDim + ", fused " + fused
                + ", encoder " + vaeEncoder + ", " + (distilled ? "distilled" : "base") + ", padding "
                + transformerPaddingBytes + ", renames " + renames + ", types " + inputTypes + ", activations "
                + activationType + " " + graphActivationTypes + ", ids " + idType + ", tokens " + tokenType
                + ", decoder " + decoderLayout + ", clip " + contextClip + ", variants " + variants
                + ", text encoder " + textEncoderQuant + ", transformer " + transformerQuant + "]";
    }

    /** Mutable builder; {@link #build()} validates everything. */
    public static final class Builder {
        private int textSequenceLength = 64;
        private int contextDim = 32;
        private int defaultWidth = 64;
        private int defaultHeight = 64;
        private int vaeChunkSize = 64;
        private int vaeHeadDim = 8;
        private FusedConvention fused = FusedConvention.NONE;
        private boolean vaeEncoder = true;
        private boolean distilled = true;
        private Path tokenizerSource;
        private long transformerPaddingBytes;
        private long seed = DEFAULT_SEED;
        private final Map<BundleGraph, Map<String, String>> renames = new EnumMap<>(BundleGraph.class);
        private final Map<BundleGraph, Map<String, TensorElementType>> inputTypes = new EnumMap<>(BundleGraph.class);
        private TensorElementType activationType = TensorElementType.FLOAT16;
        private final Map<BundleGraph, TensorElementType> graphActivationTypes = new EnumMap<>(BundleGraph.class);
        private TensorElementType idType = TensorElementType.FLOAT;
        private TensorElementType tokenType = TensorElementType.INT64;
        private VaeDecoderLayout decoderLayout = VaeDecoderLayout.SPLIT;
        private float contextClip;
        private final Set<BundleVariant> variants = EnumSet.noneOf(BundleVariant.class);
        private ExportLayout layout = ExportLayout.MARKSHARK2;
        private QuantSpec textEncoderQuant = QuantSpec.Q4_BLOCK16;
        private QuantSpec transformerQuant = QuantSpec.Q4_BLOCK16;

        private Builder() {}

        /**
         * hlhc's export ({@link ExportLayout#HLHC}): sets the layout, FLOAT activations, INT64 ids and tokens, the
         * unified VAE decoder, a 4-bit block-128 text encoder and an 8-bit block-128 transformer. Later setters may
         * change any of these but the layout's unified decoder and the absence of a fused graph.
         *
         * @return this
         */
        public Builder hlhcLayout() {
            this.layout = ExportLayout.HLHC;
            this.activationType = TensorElementType.FLOAT;
            this.idType = TensorElementType.INT64;
            this.tokenType = TensorElementType.INT64;
            this.decoderLayout = VaeDecoderLayout.UNIFIED;
            this.textEncoderQuant = QuantSpec.Q4_BLOCK128;
            this.transformerQuant = QuantSpec.Q8_BLOCK128;
            return this;
        }

        /**
         * @param value how the text encoder's weight is quantized [4-bit block 16; hlhc: 4-bit block 128]
         * @return this
         */
        public Builder textEncoderQuant(QuantSpec value) {
            this.textEncoderQuant = Objects.requireNonNull(value, "textEncoderQuant");
            return this;
        }

        /**
         * @param value how the transformer's token weight is quantized [4-bit block 16; hlhc: 8-bit block 128]; its
         *     block must divide 128
         * @return this
         */
        public Builder transformerQuant(QuantSpec value) {
            this.transformerQuant = Objects.requireNonNull(value, "transformerQuant");
            return this;
        }

        /**
         * @param value the element type of every graph's float activations [FLOAT16]; FLOAT16, FLOAT, BFLOAT16 or
         *     DOUBLE (FLOAT also sets the transformers' {@code activation_dtype} to {@code float32})
         * @return this
         */
        public Builder activationType(TensorElementType value) {
            this.activationType = Objects.requireNonNull(value, "activationType");
            return this;
        }

        /**
         * Per-graph override of {@link #activationType}, to make neighbouring graphs disagree (the backend must
         * convert between them).
         *
         * @param graphKey config key of the graph
         * @param value its float activation type
         * @return this
         */
        public Builder graphActivationType(String graphKey, TensorElementType value) {
            graphActivationTypes.put(BundleGraph.fromKey(graphKey), Objects.requireNonNull(value, "value"));
            return this;
        }

        /**
         * @param value element type of {@code x_ids}/{@code ctx_ids} [FLOAT]; FLOAT, FLOAT16, DOUBLE, INT64 or INT32
         * @return this
         */
        public Builder idType(TensorElementType value) {
            this.idType = Objects.requireNonNull(value, "idType");
            return this;
        }

        /**
         * @param value element type of the text encoder's integer inputs [INT64]; INT64 or INT32
         * @return this
         */
        public Builder tokenType(TensorElementType value) {
            this.tokenType = Objects.requireNonNull(value, "tokenType");
            return this;
        }

        /**
         * @param value which VAE decoder graphs to write [SPLIT]
         * @return this
         */
        public Builder vaeDecoderLayout(VaeDecoderLayout value) {
            this.decoderLayout = Objects.requireNonNull(value, "vaeDecoderLayout");
            return this;
        }

        /**
         * @param value true for {@link VaeDecoderLayout#UNIFIED}, false for {@link VaeDecoderLayout#SPLIT}
         * @return this
         */
        public Builder unifiedVaeDecoder(boolean value) {
            return vaeDecoderLayout(value ? VaeDecoderLayout.UNIFIED : VaeDecoderLayout.SPLIT);
        }

        /**
         * @param value true for {@link VaeDecoderLayout#SINGLE_POST}, false for {@link VaeDecoderLayout#SPLIT}
         * @return this
         */
        public Builder singleVaePost(boolean value) {
            return vaeDecoderLayout(value ? VaeDecoderLayout.SINGLE_POST : VaeDecoderLayout.SPLIT);
        }

        /**
         * @param value true for {@link BundleVariant#ZERO_PADDED_CONTEXT}
         * @return this
         */
        public Builder zeroPaddedContext(boolean value) {
            if (value) {
                variants.add(BundleVariant.ZERO_PADDED_CONTEXT);
            } else {
                variants.remove(BundleVariant.ZERO_PADDED_CONTEXT);
            }
            return this;
        }

        /**
         * @param value config {@code context_clip} [0 = off], finite and ≥ 0
         * @return this
         */
        public Builder contextClip(float value) {
            this.contextClip = value;
            return this;
        }

        /**
         * @param values layout variants to write (added to those already set)
         * @return this
         */
        public Builder variant(BundleVariant... values) {
            for (BundleVariant v : values) {
                variants.add(Objects.requireNonNull(v, "variant"));
            }
            return this;
        }

        /**
         * @param value config {@code text_seq_len} [64]
         * @return this
         */
        public Builder textSequenceLength(int value) {
            this.textSequenceLength = value;
            return this;
        }

        /**
         * @param value config {@code context_dim} [32]
         * @return this
         */
        public Builder contextDim(int value) {
            this.contextDim = value;
            return this;
        }

        /**
         * @param width config {@code default_width} [64], a multiple of 16
         * @param height config {@code default_height} [64], a multiple of 16
         * @return this
         */
        public Builder defaultSize(int width, int height) {
            this.defaultWidth = width;
            this.defaultHeight = height;
            return this;
        }

        /**
         * @param value config {@code chunk_size} of the attention-chunk graph [64]
         * @return this
         */
        public Builder vaeChunkSize(int value) {
            this.vaeChunkSize = value;
            return this;
        }

        /**
         * @param value attention head dim hd (config {@code head_dim}) [8]
         * @return this
         */
        public Builder vaeHeadDim(int value) {
            this.vaeHeadDim = value;
            return this;
        }

        /**
         * @param value fused graph convention [NONE]
         * @return this
         */
        public Builder fused(FusedConvention value) {
            this.fused = Objects.requireNonNull(value, "fused");
            return this;
        }

        /**
         * @param value whether to write {@code vae_encoder} [true]
         * @return this
         */
        public Builder vaeEncoder(boolean value) {
            this.vaeEncoder = value;
            return this;
        }

        /**
         * @param value distilled variant (4 steps, guidance 1) or base (50 steps, guidance 4) [true]
         * @return this
         */
        public Builder distilled(boolean value) {
            this.distilled = value;
            return this;
        }

        /**
         * @param value tokenizer directory to copy [the fixture shipped by flux2-testkit, {@link TokenizerFixture#directory()}]
         * @return this
         */
        public Builder tokenizerSource(Path value) {
            this.tokenizerSource = Objects.requireNonNull(value, "tokenizerSource");
            return this;
        }

        /**
         * Extra 4-bit MatMulNBits weights in the transformer shards that ONNX Runtime loads, pre-packs and reads on
         * every run (for memory benchmarks). Rounded up to whole padding columns. [0]
         *
         * <p>The padding node is a MatMulNBits with M = 1 (the mean token tiled to K = 2048) whose codes all equal
         * their zero points, so it adds exactly 0 but cannot be folded. Writing streams the padding (little heap);
         * ONNX Runtime pre-packs the codes at session creation and reads the scales on the first run, so process
         * RSS and run time grow with the padding (figures in docs/performance.md).
         *
         * @param value minimum extra bytes, 0..{@link #MAX_PADDING_BYTES}
         * @return this
         */
        public Builder transformerPaddingBytes(long value) {
            this.transformerPaddingBytes = value;
            return this;
        }

        /**
         * @param value seed of every synthetic weight [{@link #DEFAULT_SEED}]
         * @return this
         */
        public Builder seed(long value) {
            this.seed = value;
            return this;
        }

        /**
         * Failure-test override: the graph file declares input {@code from} under the name {@code to}; the config
         * still lists {@code from}.
         *
         * @param graphKey config key of the graph
         * @param from the real input name
         * @param to the name written into the graph file
         * @return this
         */
        public Builder renameInput(String graphKey, String from, String to) {
            BundleGraph g = BundleGraph.fromKey(graphKey);
            Objects.requireNonNull(from, "from");
            if (to == null || to.isBlank()) {
                throw new IllegalArgumentException("renameInput: new name for '" + from + "' must not be blank");
            }
            renames.computeIfAbsent(g, k -> new LinkedHashMap<>()).put(from, to);
            return this;
        }

        /**
         * Failure-test override: the graph file declares input {@code input} with element type {@code type}
         * (the graph still computes correctly, since every input first goes through a Cast).
         *
         * @param graphKey config key of the graph
         * @param input the real input name
         * @param type the element type written into the graph file
         * @return this
         */
        public Builder inputElementType(String graphKey, String input, TensorElementType type) {
            BundleGraph g = BundleGraph.fromKey(graphKey);
            Objects.requireNonNull(input, "input");
            Objects.requireNonNull(type, "type");
            inputTypes.computeIfAbsent(g, k -> new LinkedHashMap<>()).put(input, type);
            return this;
        }

        /**
         * @return the validated spec
         * @throws IllegalArgumentException naming the offending field
         */
        public SyntheticBundleSpec build() {
            require(
                    textSequenceLength >= 1 && textSequenceLength <= 4096,
                    "textSequenceLength",
                    textSequenceLength,
                    "1..4096");
            require(contextDim >= 1 && contextDim <= 16384, "contextDim", contextDim, "1..16384");
            require(
                    defaultWidth >= 16 && defaultWidth <= 4096 && defaultWidth % 16 == 0,
                    "defaultWidth",
                    defaultWidth,
                    "a multiple of 16 in 16..4096");
            require(
                    defaultHeight >= 16 && defaultHeight <= 4096 && defaultHeight % 16 == 0,
                    "defaultHeight",
                    defaultHeight,
                    "a multiple of 16 in 16..4096");
            require(vaeChunkSize >= 1, "vaeChunkSize", vaeChunkSize, ">= 1");
            require(vaeHeadDim >= 1 && vaeHeadDim <= 512, "vaeHeadDim", vaeHeadDim, "1..512");
            require(
                    transformerPaddingBytes >= 0 && transformerPaddingBytes <= MAX_PADDING_BYTES,
                    "transformerPaddingBytes",
                    transformerPaddingBytes,
                    "0.." + MAX_PADDING_BYTES);
            requireType("activationType", activationType, FLOAT_TYPES);
            graphActivationTypes.forEach((g, t) -> requireType("graphActivationType(" + g.key() + ")", t, FLOAT_TYPES));
            requireType(
                    "idType",
                    idType,
                    Set.of(
                            TensorElementType.FLOAT,
                            TensorElementType.FLOAT16,
                            TensorElementType.DOUBLE,
                            TensorElementType.INT64,
                            TensorElementType.INT32));
            requireType("tokenType", tokenType, Set.of(TensorElementType.INT64, TensorElementType.INT32));
            if (SyntheticDims.LATENT_CHANNELS % transformerQuant.blockSize() != 0) {
                throw new IllegalArgumentException("SyntheticBundleSpec.transformerQuant: the block size must divide "
                        + SyntheticDims.LATENT_CHANNELS + ", was " + transformerQuant.blockSize());
            }
            if (layout == ExportLayout.HLHC
                    && (decoderLayout != VaeDecoderLayout.UNIFIED || fused != FusedConvention.NONE)) {
                throw new IllegalArgumentException(
                        "SyntheticBundleSpec: the hlhc layout has one VAE decoder graph and no"
                                + " fused transformer, got " + decoderLayout + " and " + fused);
            }
            if (layout != ExportLayout.HLHC
                    && (has(BundleVariant.TOKENIZER_BESIDE_GRAPHS) || has(BundleVariant.UNKNOWN_CONFIG_JSON))) {
                throw new IllegalArgumentException(
                        "SyntheticBundleSpec: TOKENIZER_BESIDE_GRAPHS and UNKNOWN_CONFIG_JSON are hlhc-layout variants");
            }
            if (!(contextClip >= 0 && Float.isFinite(contextClip))) {
                throw new IllegalArgumentException(
                        "SyntheticBundleSpec.contextClip must be finite and >= 0, was " + contextClip);
            }
            SyntheticBundleSpec spec = new SyntheticBundleSpec(this);
            validateOverrides(spec);
            for (BundleGraph g : graphActivationTypes.keySet()) {
                if (!spec.contains(g)) {
                    throw new IllegalArgumentException(
                            "graphActivationType: graph '" + g.key() + "' is not part of this bundle");
                }
            }
            return spec;
        }

        private boolean has(BundleVariant v) {
            return variants.contains(v);
        }

        private void validateOverrides(SyntheticBundleSpec spec) {
            for (Map.Entry<BundleGraph, Map<String, String>> e : renames.entrySet()) {
                List<String> inputs = checkedInputs(spec, e.getKey(), "renameInput");
                Set<String> finalNames = new HashSet<>(inputs);
                for (Map.Entry<String, String> r : e.getValue().entrySet()) {
                    checkInput(inputs, e.getKey(), r.getKey(), "renameInput");
                    finalNames.remove(r.getKey());
                }
                for (Map.Entry<String, String> r : e.getValue().entrySet()) {
                    if (!finalNames.add(r.getValue())) {
                        throw new IllegalArgumentException("renameInput: '" + r.getValue() + "' would name two inputs"
                                + " of " + e.getKey().key());
                    }
                }
            }
            for (Map.Entry<BundleGraph, Map<String, TensorElementType>> e : inputTypes.entrySet()) {
                List<String> inputs = checkedInputs(spec, e.getKey(), "inputElementType");
                for (String input : e.getValue().keySet()) {
                    checkInput(inputs, e.getKey(), input, "inputElementType");
                }
            }
        }

        private static List<String> checkedInputs(SyntheticBundleSpec spec, BundleGraph g, String what) {
            if (!spec.contains(g)) {
                throw new IllegalArgumentException(what + ": graph '" + g.key() + "' is not part of this bundle");
            }
            return spec.inputNames(g.key());
        }

        private static void checkInput(List<String> inputs, BundleGraph g, String input, String what) {
            if (!inputs.contains(input)) {
                throw new IllegalArgumentException(
                        what + ": graph '" + g.key() + "' has no input '" + input + "' (inputs: " + inputs + ")");
            }
        }

        private static final Set<TensorElementType> FLOAT_TYPES = Set.of(
                TensorElementType.FLOAT16,
                TensorElementType.FLOAT,
                TensorElementType.BFLOAT16,
                TensorElementType.DOUBLE);

        private static void requireType(String field, TensorElementType type, Set<TensorElementType> allowed) {
            if (!allowed.contains(type)) {
                throw new IllegalArgumentException(
                        "SyntheticBundleSpec." + field + " must be one of " + allowed + ", was " + type);
            }
        }

        private static void require(boolean ok, String field, long value, String expected) {
            if (!ok) {
                throw new IllegalArgumentException(
                        "SyntheticBundleSpec." + field + " must be " + expected + ", was " + value);
            }
        }
    }
}
