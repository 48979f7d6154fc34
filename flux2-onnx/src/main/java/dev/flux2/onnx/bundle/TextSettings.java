package dev.flux2.onnx.bundle;

import java.util.Objects;

/**
 * What the config says about the text side.
 *
 * @param sequenceLength {@code text_seq_len}: token count the text encoder takes
 * @param contextDim {@code context_dim}: features per context row
 * @param contextClip {@code context_clip}: when &gt; 0 the context is clamped to ±clip (0 = off)
 * @param zeroPaddedContext {@code zero_padded_context}: zero the context rows of padding tokens
 * @param tokenizerDir {@code tokenizer_dir}, relative to the bundle folder
 */
public record TextSettings(
        int sequenceLength, int contextDim, float contextClip, boolean zeroPaddedContext, String tokenizerDir) {

    /** Checks for nulls. */
    public TextSettings {
        Objects.requireNonNull(tokenizerDir, "tokenizerDir");
    }
}
