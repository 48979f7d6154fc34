package dev.flux2.testkit.timing;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * A timing bundle: a synthetic bundle (miniature text encoder and VAE, real text length and context width) whose
 * transformer is a {@link TimingTransformerSpec realistic-width timing graph}. Immutable; create it with
 * {@link #builder()}.
 */
public final class TimingBundleSpec {
    private final TimingTransformerSpec transformer;
    private final int width;
    private final int height;
    private final int textSequenceLength;
    private final int vaeChunkSize;
    private final Path tokenizerSource;

    private TimingBundleSpec(Builder b) {
        this.transformer = b.transformer;
        this.width = b.width;
        this.height = b.height;
        this.textSequenceLength = b.textSequenceLength;
        this.vaeChunkSize = b.vaeChunkSize;
        this.tokenizerSource = b.tokenizerSource;
    }

    /** @return a builder with the defaults listed on its setters */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the transformer graph's shape */
    public TimingTransformerSpec transformer() {
        return transformer;
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

    /** @return config {@code chunk_size} of the VAE attention-chunk graph */
    public int vaeChunkSize() {
        return vaeChunkSize;
    }

    /** @return the tokenizer directory to copy, when not the testkit default */
    public Optional<Path> tokenizerSource() {
        return Optional.ofNullable(tokenizerSource);
    }

    @Override
    public String toString() {
        return "TimingBundleSpec[" + transformer + ", " + width + "x" + height + ", text " + textSequenceLength
                + ", vae chunk " + vaeChunkSize + "]";
    }

    /** Mutable builder; {@link #build()} validates. */
    public static final class Builder {
        private TimingTransformerSpec transformer =
                TimingTransformerSpec.builder().build();
        private int width = 512;
        private int height = 512;
        private int textSequenceLength = 512;
        private int vaeChunkSize = 1024;
        private Path tokenizerSource;

        private Builder() {}

        /** @param value the transformer [klein width, 1 double + 1 single block] @return this */
        public Builder transformer(TimingTransformerSpec value) {
            this.transformer = Objects.requireNonNull(value, "transformer");
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

        /** @param value config {@code text_seq_len} [512, as the real bundle] @return this */
        public Builder textSequenceLength(int value) {
            this.textSequenceLength = value;
            return this;
        }

        /** @param value VAE attention rows per chunk [1024, as the real bundle] @return this */
        public Builder vaeChunkSize(int value) {
            this.vaeChunkSize = value;
            return this;
        }

        /** @param value tokenizer directory to copy [the testkit default] @return this */
        public Builder tokenizerSource(Path value) {
            this.tokenizerSource = Objects.requireNonNull(value, "tokenizerSource");
            return this;
        }

        /**
         * @return the validated spec
         * @throws IllegalArgumentException naming the offending field
         */
        public TimingBundleSpec build() {
            if (width < 16 || width % 16 != 0 || height < 16 || height % 16 != 0) {
                throw new IllegalArgumentException(
                        "TimingBundleSpec.defaultSize must be multiples of 16, was " + width + "x" + height);
            }
            if (textSequenceLength < 1) {
                throw new IllegalArgumentException(
                        "TimingBundleSpec.textSequenceLength must be >= 1, was " + textSequenceLength);
            }
            if (vaeChunkSize < 1) {
                throw new IllegalArgumentException("TimingBundleSpec.vaeChunkSize must be >= 1, was " + vaeChunkSize);
            }
            return new TimingBundleSpec(this);
        }
    }
}
