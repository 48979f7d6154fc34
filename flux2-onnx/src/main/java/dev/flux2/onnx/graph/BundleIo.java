package dev.flux2.onnx.graph;

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
 * @param vaeDecoder the split VAE decoder chain
 * @param vaeEncoder the VAE encoder, when the bundle has one
 */
public record BundleIo(Map<String, GraphSignature> signatures, TextEncoderIo textEncoder, TransformerIo transformer,
        Optional<FusedIo> fused, VaeDecoderIo vaeDecoder, Optional<VaeEncoderIo> vaeEncoder) {

    /** Copies. */
    public BundleIo {
        signatures = Collections.unmodifiableMap(new LinkedHashMap<>(signatures));
        Objects.requireNonNull(textEncoder, "textEncoder");
        Objects.requireNonNull(transformer, "transformer");
        Objects.requireNonNull(fused, "fused");
        Objects.requireNonNull(vaeDecoder, "vaeDecoder");
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

    /** @return the fused convention in effect ({@link FusedConvention#NONE} without a usable fused graph) */
    public FusedConvention fusedConvention() {
        return fused.map(FusedIo::convention).orElse(FusedConvention.NONE);
    }
}
