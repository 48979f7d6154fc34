package dev.flux2.onnx.bundle;

import dev.flux2.api.ModelLoadException;
import dev.flux2.api.ModelRole;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A model that has passed every load-time check: its parts found (by its config or by their graphs' signatures, and
 * from elsewhere where asked), every file present with its promised size, every graph's header matching its contract.
 * Nothing here holds native resources or weights.
 *
 * @param layout how the parts were found
 * @param config what the backend runs
 * @param inventory the files and their sizes
 * @param io the checked graph I/O
 */
public record OnnxBundle(BundleLayout layout, BundleConfig config, BundleInventory inventory, BundleIo io) {
    private static final Logger LOG = LoggerFactory.getLogger(OnnxBundle.class);

    /** Checks for nulls. */
    public OnnxBundle {
        Objects.requireNonNull(layout, "layout");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(inventory, "inventory");
        Objects.requireNonNull(io, "io");
    }

    /**
     * @param directory a model folder
     * @return the checked bundle
     * @throws ModelLoadException naming the file, graph or field that is wrong
     */
    public static OnnxBundle load(Path directory) {
        return load(directory, Map.of());
    }

    /**
     * @param directory a model folder
     * @param components parts taken from elsewhere, by role (a folder or a file each)
     * @return the checked bundle
     * @throws ModelLoadException naming the file, graph or field that is wrong, or listing the graphs found when the
     *     parts do not make a model
     */
    public static OnnxBundle load(Path directory, Map<ModelRole, Path> components) {
        BundleLayout layout = LayoutResolver.resolve(directory, components);
        BundleConfig config = withoutAbsentOptionalGraphs(layout.requireConfig());
        BundleInventory inventory = BundleValidator.validate(config);
        return new OnnxBundle(layout, config, inventory, GraphContracts.load(config));
    }

    /**
     * A revision may name a fused denoiser or a VAE encoder without shipping its graph (the pinned q4 revision lacks
     * both, and {@code flux2 download} reports them as absent); the bundle is then used without them, logged at DEBUG
     * naming the file and what is lost. A graph file that is present is checked in full, shards included.
     *
     * @param config the parsed config
     * @return the config without the optional graphs whose graph file is absent
     */
    static BundleConfig withoutAbsentOptionalGraphs(BundleConfig config) {
        List<ModelEntry> absent = BundleValidator.absentOptionalGraphs(config);
        // The routine case for the pinned revision, so not a warning: ModelInfo (fusedSteps 0, supportsImageInput
        // false) and flux2 info report it, and an init image fails with a clear error.
        for (ModelEntry e : absent) {
            LOG.debug(
                    "{} names {} (models.{}), which is not in {}: running without it, so {}",
                    config.describedBy(),
                    e.file(),
                    e.key(),
                    config.directory(),
                    e.key().equals(GraphKeys.VAE_ENCODER)
                            ? "init and reference images are not supported"
                            : "every generation denoises per step");
        }
        return absent.isEmpty()
                ? config
                : config.withoutModels(absent.stream().map(ModelEntry::key).toList());
    }
}
