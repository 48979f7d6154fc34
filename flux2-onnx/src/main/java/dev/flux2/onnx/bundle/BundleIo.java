package dev.flux2.onnx.bundle;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Every graph of a bundle, checked against its contract, with the tensor names each stage feeds and reads.
 *
 * @param signatures every graph's real signature, by config key (in config order)
 * @param textEncoder the text encoder
 * @param transformer the per-step transformer
 * @param fused the fused transformer, when the bundle has one (possibly unusable, with the reason)
 * @param decoder the VAE decoder: one unified graph or the split chain
 * @param vaeEncoder the VAE encoder, when the bundle has one
 */
public record BundleIo(
        Map<String, GraphSignature> signatures,
        TextEncoderIo textEncoder,
        TransformerIo transformer,
        Optional<FusedIo> fused,
        DecoderIo decoder,
        Optional<VaeEncoderIo> vaeEncoder) {

    /** Copies. */
    public BundleIo {
        signatures = Collections.unmodifiableMap(new LinkedHashMap<>(signatures));
        Objects.requireNonNull(textEncoder, "textEncoder");
        Objects.requireNonNull(transformer, "transformer");
        Objects.requireNonNull(fused, "fused");
        Objects.requireNonNull(decoder, "decoder");
        Objects.requireNonNull(vaeEncoder, "vaeEncoder");
    }

    /** @param key a config key @return the graph's signature */
    public GraphSignature signature(String key) {
        GraphSignature s = signatures.get(key);
        if (s == null) {
            throw new IllegalArgumentException("no graph signature for " + key);
        }
        return s;
    }

    /** @return the split decoder chain, when the bundle decodes with one */
    public Optional<VaeDecoderIo> splitDecoder() {
        return decoder instanceof VaeDecoderIo split ? Optional.of(split) : Optional.empty();
    }

    /** @return the fused convention in effect ({@link FusedConvention#NONE} without a usable fused graph) */
    public FusedConvention fusedConvention() {
        return fused.map(FusedIo::convention).orElse(FusedConvention.NONE);
    }
}
