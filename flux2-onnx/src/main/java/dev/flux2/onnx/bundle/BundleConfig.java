package dev.flux2.onnx.bundle;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What the backend runs: the graph of every part by key, the text settings and the defaults. Built by
 * {@link BundleConfigReader} from a {@code flux2-config.json} (which has checked every required field), or by the
 * layout resolver ({@link LayoutResolver}) from graphs found by their signatures, with the klein 4B defaults
 * ({@link KleinDefaults}) where no config says otherwise.
 *
 * @param directory the bundle folder, absolute; entry files, manifests and the tokenizer folder are relative to it
 *     (or absolute, for a part taken from another folder)
 * @param file the {@code flux2-config.json} read, if any
 * @param defaults identity and generation defaults
 * @param text text-side settings
 * @param models every entry of {@code models}, in file order (including keys this backend ignores)
 * @param decoder which graphs decode latents
 * @param supportsImg2img {@code supports_img2img}, if given
 */
public record BundleConfig(
        Path directory,
        Optional<Path> file,
        ModelDefaults defaults,
        TextSettings text,
        Map<String, ModelEntry> models,
        DecoderLayout decoder,
        Optional<Boolean> supportsImg2img) {

    /** Copies the collections (keeping order). */
    public BundleConfig {
        directory = directory.toAbsolutePath();
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(defaults, "defaults");
        Objects.requireNonNull(text, "text");
        models = Collections.unmodifiableMap(new LinkedHashMap<>(models));
        Objects.requireNonNull(decoder, "decoder");
        Objects.requireNonNull(supportsImg2img, "supportsImg2img");
    }

    /**
     * @param keys {@code models} keys of optional graphs to leave out (not the text encoder, transformer or decoder)
     * @return this config without those entries
     * @throws IllegalArgumentException for a key the decoder layout or the pipeline requires
     */
    public BundleConfig withoutModels(Collection<String> keys) {
        Map<String, ModelEntry> kept = new LinkedHashMap<>(models);
        for (String key : keys) {
            if (key.equals(GraphKeys.TEXT_ENCODER)
                    || key.equals(GraphKeys.TRANSFORMER)
                    || decoder.graphKeys().contains(key)) {
                throw new IllegalArgumentException("models." + key + " is required and cannot be left out");
            }
            kept.remove(key);
        }
        return new BundleConfig(directory, file, defaults, text, kept, decoder, supportsImg2img);
    }

    /** @param entry one of the entries @return its graph file */
    public Path graphPath(ModelEntry entry) {
        return directory.resolve(entry.file());
    }

    /** @return the tokenizer folder */
    public Path tokenizerDirectory() {
        return directory.resolve(text.tokenizerDir());
    }

    /** @return what the bundle was described by, for messages: its config file, or its folder */
    public String describedBy() {
        return file.map(Path::toString).orElse(directory + " (graphs found by their signatures)");
    }

    /** @param key a models key @return the entry, if present */
    public Optional<ModelEntry> model(String key) {
        return Optional.ofNullable(models.get(key));
    }

    /**
     * @param key a models key the reader has required
     * @return the entry
     * @throws IllegalStateException when absent (the reader guarantees the required keys)
     */
    public ModelEntry requiredModel(String key) {
        ModelEntry e = models.get(key);
        if (e == null) {
            throw new IllegalStateException("models." + key + " is missing from " + describedBy());
        }
        return e;
    }

    /**
     * @return the keys of every graph this backend uses, in run order: text encoder, transformer, fused
     *     transformer (if any), the decoder graphs, VAE encoder (if any); other {@code models} keys are ignored
     */
    public List<String> usedModelKeys() {
        List<String> keys = new ArrayList<>(List.of(GraphKeys.TEXT_ENCODER, GraphKeys.TRANSFORMER));
        fusedTransformer().ifPresent(e -> keys.add(e.key()));
        keys.addAll(decoder.graphKeys());
        vaeEncoder().ifPresent(e -> keys.add(e.key()));
        return List.copyOf(keys);
    }

    /** @return the entries of {@link #usedModelKeys()}, in that order */
    public List<ModelEntry> usedModels() {
        List<ModelEntry> entries = new ArrayList<>();
        for (String key : usedModelKeys()) {
            entries.add(requiredModel(key));
        }
        return entries;
    }

    /** @return the {@code models} keys this backend does not use (unknown graphs, a split chain beside a unified) */
    public List<String> ignoredModelKeys() {
        List<String> used = usedModelKeys();
        return models.keySet().stream().filter(k -> !used.contains(k)).toList();
    }

    /** @return the fused multi-step denoiser entry, if the bundle has one */
    public Optional<ModelEntry> fusedTransformer() {
        return model(GraphKeys.TRANSFORMER_FUSED);
    }

    /** @return the VAE encoder entry, if the bundle has one */
    public Optional<ModelEntry> vaeEncoder() {
        return model(GraphKeys.VAE_ENCODER);
    }

    /** @return whether init and reference images can be used (a VAE encoder and no {@code supports_img2img: false}) */
    public boolean supportsImageInput() {
        return vaeEncoder().isPresent() && supportsImg2img.orElse(true);
    }
}
