package dev.flux2.testkit.timing;

/**
 * The shape of a timing transformer graph. Immutable; create it with {@link #builder()} (defaults: FLUX.2
 * [klein] 4B width with one double-stream and one single-stream block) or {@link #tiny()} for fast tests.
 */
public final class TimingTransformerSpec {
    /** Attention head size; fixed because the 4-axis RoPE (4 × 32 dims) covers exactly 128 channels. */
    public static final int HEAD_DIM = 128;
    /** Double-stream blocks of the real FLUX.2 [klein] 4B transformer. */
    public static final int KLEIN_DOUBLE_BLOCKS = 5;
    /** The seed export's MatMulNBits block size. */
    static final int DEFAULT_BLOCK = 16;
    /** Single-stream blocks of the real FLUX.2 [klein] 4B transformer. */
    public static final int KLEIN_SINGLE_BLOCKS = 20;
    /** Latent channels per token (transformer {@code in_channels} and output channels). */
    public static final int LATENT_CHANNELS = 128;
    /** Channels of the sinusoidal timestep projection. */
    public static final int TIMESTEP_CHANNELS = 256;

    private final int heads;
    private final int mlpRatio;
    private final int contextDim;
    private final int doubleBlocks;
    private final int singleBlocks;
    private final int headGroups;
    private final int accuracyLevel;
    private final int blockSize;
    private final long seed;

    private TimingTransformerSpec(Builder b) {
        this.heads = b.heads;
        this.mlpRatio = b.mlpRatio;
        this.contextDim = b.contextDim;
        this.doubleBlocks = b.doubleBlocks;
        this.singleBlocks = b.singleBlocks;
        this.headGroups = b.headGroups;
        this.accuracyLevel = b.accuracyLevel;
        this.blockSize = b.blockSize;
        this.seed = b.seed;
    }

    /** @return a builder with the FLUX.2 [klein] 4B defaults listed on its setters */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * @return a narrow spec for tests that writes in milliseconds: 2 heads (hidden 256), context 64, one block of
     *         each kind; same graph structure as the realistic one
     */
    public static TimingTransformerSpec tiny() {
        return builder().heads(2).contextDim(64).build();
    }

    /** @return attention heads (24 in klein) */
    public int heads() {
        return heads;
    }

    /** @return hidden size = heads × 128 (3072 in klein) */
    public int hidden() {
        return heads * HEAD_DIM;
    }

    /** @return the MLP hidden size = hidden × MLP ratio (9216 in klein) */
    public int mlpHidden() {
        return hidden() * mlpRatio;
    }

    /** @return the MLP ratio (3 in klein) */
    public int mlpRatio() {
        return mlpRatio;
    }

    /** @return channels of the text context {@code ctx} (7680 in klein) */
    public int contextDim() {
        return contextDim;
    }

    /** @return double-stream blocks in this graph */
    public int doubleBlocks() {
        return doubleBlocks;
    }

    /** @return single-stream blocks in this graph */
    public int singleBlocks() {
        return singleBlocks;
    }

    /**
     * @return how many groups of heads each block's attention is computed in (the real export has two score
     *         MatMuls per block, docs/bundle-format.md §12)
     */
    public int headGroups() {
        return headGroups;
    }

    /** @return MatMulNBits {@code accuracy_level} (4 in the real transformer: int8 activations in the kernel) */
    public int accuracyLevel() {
        return accuracyLevel;
    }

    /** @return the MatMulNBits block size (16 as in the seed's export) */
    public int blockSize() {
        return blockSize;
    }

    /** @return the seed of the random weights */
    public long seed() {
        return seed;
    }

    /** @return the number of linear layers (MatMulNBits nodes): 9 + 8 per double block + 2 per single block */
    public int linearLayers() {
        return TimingWeights.shapes(this).size();
    }

    /** @return the weight parameters of all linear layers */
    public long linearParameters() {
        long sum = 0;
        for (TimingWeights.LayerShape s : TimingWeights.shapes(this)) {
            sum += (long) s.k() * s.n();
        }
        return sum;
    }

    /**
     * @return bytes of all MatMulNBits initializers: K·N/2 packed codes, 2·N·K/block fp16 scales and
     *         N·⌈K/(2·block)⌉ packed zero points per layer
     */
    public long weightBytes() {
        long sum = 0;
        for (TimingWeights.LayerShape s : TimingWeights.shapes(this)) {
            int blocks = s.k() / blockSize;
            sum += (long) s.n() * s.k() / 2
                    + 2L * s.n() * blocks
                    + (long) s.n() * Q4Linear.zeroPointBytesPerColumn(blocks);
        }
        return sum;
    }

    /**
     * @param doubleStream double-stream blocks
     * @param singleStream single-stream blocks
     * @return this spec with other block counts
     */
    public TimingTransformerSpec withBlocks(int doubleStream, int singleStream) {
        return builder()
                .heads(heads)
                .mlpRatio(mlpRatio)
                .contextDim(contextDim)
                .blocks(doubleStream, singleStream)
                .headGroups(headGroups)
                .accuracyLevel(accuracyLevel)
                .blockSize(blockSize)
                .seed(seed)
                .build();
    }

    @Override
    public String toString() {
        return "TimingTransformerSpec[hidden " + hidden() + " (" + heads + "×" + HEAD_DIM + "), mlp " + mlpHidden()
                + ", context " + contextDim + ", blocks " + doubleBlocks + " double + " + singleBlocks
                + " single, head groups " + headGroups + ", accuracy " + accuracyLevel
                + (blockSize == DEFAULT_BLOCK ? "" : ", block " + blockSize) + "]";
    }

    /** Mutable builder; {@link #build()} validates. */
    public static final class Builder {
        private int heads = 24;
        private int mlpRatio = 3;
        private int contextDim = 7680;
        private int doubleBlocks = 1;
        private int singleBlocks = 1;
        private int headGroups = 2;
        private int accuracyLevel = 4;
        private int blockSize = DEFAULT_BLOCK;
        private long seed = 0x71A1_0001L;

        private Builder() {}

        /** @param value attention heads of 128 channels [24] @return this */
        public Builder heads(int value) {
            this.heads = value;
            return this;
        }

        /** @param value MLP hidden size as a multiple of the hidden size [3] @return this */
        public Builder mlpRatio(int value) {
            this.mlpRatio = value;
            return this;
        }

        /** @param value text context channels, a multiple of 16 [7680] @return this */
        public Builder contextDim(int value) {
            this.contextDim = value;
            return this;
        }

        /**
         * @param doubleStream double-stream blocks, ≥ 0 [1]
         * @param singleStream single-stream blocks, ≥ 1 (so the text stream always reaches the output) [1]
         * @return this
         */
        public Builder blocks(int doubleStream, int singleStream) {
            this.doubleBlocks = doubleStream;
            this.singleBlocks = singleStream;
            return this;
        }

        /** @param value head groups per attention, dividing the head count [2] @return this */
        public Builder headGroups(int value) {
            this.headGroups = value;
            return this;
        }

        /** @param value MatMulNBits accuracy level 0..4 [4] @return this */
        public Builder accuracyLevel(int value) {
            this.accuracyLevel = value;
            return this;
        }

        /**
         * @param value MatMulNBits block size: 16 (the seed's export), 32, 64 or 128 [16]; K of every layer (hidden,
         *     MLP and context widths) must be a multiple of it
         * @return this
         */
        public Builder blockSize(int value) {
            this.blockSize = value;
            return this;
        }

        /** @param value seed of the random weights @return this */
        public Builder seed(long value) {
            this.seed = value;
            return this;
        }

        /**
         * @return the validated spec
         * @throws IllegalArgumentException naming the offending field
         */
        public TimingTransformerSpec build() {
            require(heads >= 1 && heads <= 64, "heads", heads, "1..64");
            require(mlpRatio >= 1 && mlpRatio <= 8, "mlpRatio", mlpRatio, "1..8");
            require(contextDim >= 16 && contextDim % 16 == 0, "contextDim", contextDim, "a multiple of 16, >= 16");
            require(doubleBlocks >= 0 && doubleBlocks <= 64, "doubleBlocks", doubleBlocks, "0..64");
            require(singleBlocks >= 1 && singleBlocks <= 64, "singleBlocks", singleBlocks, "1..64");
            require(
                    headGroups >= 1 && heads % headGroups == 0,
                    "headGroups",
                    headGroups,
                    "a divisor of heads (" + heads + ")");
            require(accuracyLevel >= 0 && accuracyLevel <= 4, "accuracyLevel", accuracyLevel, "0..4");
            require(
                    (blockSize == 16 || blockSize == 32 || blockSize == 64 || blockSize == 128)
                            && contextDim % blockSize == 0,
                    "blockSize",
                    blockSize,
                    "16, 32, 64 or 128, dividing contextDim (" + contextDim + ")");
            return new TimingTransformerSpec(this);
        }

        private static void require(boolean ok, String field, long value, String expected) {
            if (!ok) {
                throw new IllegalArgumentException(
                        "TimingTransformerSpec." + field + " must be " + expected + ", was " + value);
            }
        }
    }
}
