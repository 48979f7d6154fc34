package dev.flux2.testkit.timing;

import java.util.Objects;

/**
 * A full-size synthetic bundle for GPU measurements: every part at the real model's shapes with random 4-bit
 * weights, so that a whole image (text encoder, denoising steps, VAE decoder) can be timed end to end. The defaults
 * are FLUX.2 [klein] 4B's: the text encoder of {@link TextEncoderShape#qwen3For4b()}, the transformer of
 * {@code TimingTransformerSpec.builder().blocks(5, 20)}, the VAE decoder of {@link VaeDecoderShape#flux2()}. Immutable;
 * create it with {@link #builder()}. Scaled-down specs exist for tests of the writer; the full one writes about
 * 5.3 GB and is meant to be written on the measuring machine only.
 */
public final class FullSizeBundleSpec {
    private final TimingTransformerSpec transformer;
    private final TextEncoderShape textEncoder;
    private final VaeDecoderShape vaeDecoder;
    private final int width;
    private final int height;
    private final int textSequenceLength;
    private final int vaeChunkSize;
    private final long seed;

    private FullSizeBundleSpec(Builder b) {
        this.transformer = b.transformer;
        this.textEncoder = b.textEncoder;
        this.vaeDecoder = b.vaeDecoder;
        this.width = b.width;
        this.height = b.height;
        this.textSequenceLength = b.textSequenceLength;
        this.vaeChunkSize = b.vaeChunkSize;
        this.seed = b.seed;
    }

    /** @return a builder with the real model's shapes */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the transformer */
    public TimingTransformerSpec transformer() {
        return transformer;
    }

    /** @return the text encoder's shape */
    public TextEncoderShape textEncoder() {
        return textEncoder;
    }

    /** @return the VAE decoder's channel plan */
    public VaeDecoderShape vaeDecoder() {
        return vaeDecoder;
    }

    /** @return config {@code default_width} */
    public int width() {
        return width;
    }

    /** @return config {@code default_height} */
    public int height() {
        return height;
    }

    /** @return config {@code text_seq_len} */
    public int textSequenceLength() {
        return textSequenceLength;
    }

    /** @return config {@code chunk_size} of the VAE attention chunk */
    public int vaeChunkSize() {
        return vaeChunkSize;
    }

    /** @return the seed of the text encoder's and VAE decoder's weights */
    public long seed() {
        return seed;
    }

    @Override
    public String toString() {
        return "FullSizeBundleSpec[text encoder " + textEncoder + ", " + transformer + ", VAE decoder " + vaeDecoder
                + ", " + width + "x" + height + ", text " + textSequenceLength + "]";
    }

    /** Mutable builder; {@link #build()} validates. */
    public static final class Builder {
        private TimingTransformerSpec transformer =
                TimingTransformerSpec.builder().blocks(5, 20).build();
        private TextEncoderShape textEncoder = TextEncoderShape.qwen3For4b();
        private VaeDecoderShape vaeDecoder = VaeDecoderShape.flux2();
        private int width = 512;
        private int height = 512;
        private int textSequenceLength = 512;
        private int vaeChunkSize = 1024;
        private long seed = 0xF0_11_51_2EL;

        private Builder() {}

        /** @param value the transformer [klein width, 5 double + 20 single blocks] @return this */
        public Builder transformer(TimingTransformerSpec value) {
            this.transformer = Objects.requireNonNull(value, "transformer");
            return this;
        }

        /** @param value the text encoder [Qwen3-4B width, 27 layers] @return this */
        public Builder textEncoder(TextEncoderShape value) {
            this.textEncoder = Objects.requireNonNull(value, "textEncoder");
            return this;
        }

        /** @param value the VAE decoder [FLUX.2's channels] @return this */
        public Builder vaeDecoder(VaeDecoderShape value) {
            this.vaeDecoder = Objects.requireNonNull(value, "vaeDecoder");
            return this;
        }

        /**
         * @param w config {@code default_width} [512], a multiple of 16
         * @param h config {@code default_height} [512], a multiple of 16
         * @return this
         */
        public Builder defaultSize(int w, int h) {
            this.width = w;
            this.height = h;
            return this;
        }

        /** @param value config {@code text_seq_len} [512] @return this */
        public Builder textSequenceLength(int value) {
            this.textSequenceLength = value;
            return this;
        }

        /** @param value VAE attention rows per chunk [1024] @return this */
        public Builder vaeChunkSize(int value) {
            this.vaeChunkSize = value;
            return this;
        }

        /** @param value weight seed @return this */
        public Builder seed(long value) {
            this.seed = value;
            return this;
        }

        /**
         * @return the validated spec
         * @throws IllegalArgumentException naming the offending field
         */
        public FullSizeBundleSpec build() {
            if (width < 16 || width % 16 != 0 || height < 16 || height % 16 != 0) {
                throw new IllegalArgumentException(
                        "FullSizeBundleSpec.defaultSize must be multiples of 16, was " + width + "x" + height);
            }
            if (textSequenceLength < 1 || vaeChunkSize < 1) {
                throw new IllegalArgumentException("FullSizeBundleSpec: textSequenceLength and vaeChunkSize must be"
                        + " >= 1, was " + textSequenceLength + ", " + vaeChunkSize);
            }
            if (transformer.contextDim() != textEncoder.contextDim()) {
                throw new IllegalArgumentException("FullSizeBundleSpec: the transformer's context width "
                        + transformer.contextDim() + " must equal the text encoder's " + textEncoder.contextDim()
                        + " (hidden × output layers)");
            }
            return new FullSizeBundleSpec(this);
        }
    }
}
