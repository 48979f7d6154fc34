package dev.flux2.onnx.bundle;

import dev.flux2.api.ModelRole;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One part of a model as a source provides it: the graphs that play it, with absolute file and manifest paths.
 *
 * @param role the part
 * @param entries its graphs under the keys the backend runs them by (text encoder: one; denoiser: the per-step graph
 *     and optionally the fused one; VAE decoder: one graph or the split chain; VAE encoder: one; tokenizer: none)
 * @param decoder for the VAE decoder: one graph or the split chain
 * @param tokenizer for the tokenizer: its folder
 * @param config the {@code flux2-config.json} that described the part, if any
 * @param origin where the part comes from, for messages and {@code flux2 info}
 */
record ModelPart(
        ModelRole role,
        List<ModelEntry> entries,
        Optional<DecoderLayout> decoder,
        Optional<Path> tokenizer,
        Optional<dev.flux2.onnx.bundle.BundleConfig> config,
        String origin) {

    /** Copies and checks for nulls. */
    ModelPart {
        Objects.requireNonNull(role, "role");
        entries = List.copyOf(entries);
        Objects.requireNonNull(decoder, "decoder");
        Objects.requireNonNull(tokenizer, "tokenizer");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(origin, "origin");
    }
}
