package dev.flux2.onnx;

import dev.flux2.api.ModelLoadException;
import dev.flux2.onnx.config.BundleConfig;
import dev.flux2.onnx.config.BundleConfigReader;
import dev.flux2.onnx.config.BundleInventory;
import dev.flux2.onnx.config.BundleValidator;
import dev.flux2.onnx.config.GraphKeys;
import dev.flux2.onnx.config.ModelEntry;
import dev.flux2.onnx.graph.BundleIo;
import dev.flux2.onnx.graph.GraphContracts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A bundle folder that has passed every load-time check: config parsed, every file present with its promised size,
 * every graph's header matching its contract. Nothing here holds native resources or weights.
 *
 * @param config the parsed config
 * @param inventory the files and their sizes
 * @param io the checked graph I/O
 */
public record OnnxBundle(BundleConfig config, BundleInventory inventory, BundleIo io) {
    /** The manifest of the gandamu custom WebGPU format (not ONNX). */
    static final String GANDAMU_MANIFEST = "manifest.json";
    /** The first shard of the gandamu custom WebGPU format. */
    static final String GANDAMU_SHARD = "shard_000.bin";

    private static final Logger LOG = LoggerFactory.getLogger(OnnxBundle.class);

    /** Checks for nulls. */
    public OnnxBundle {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(inventory, "inventory");
        Objects.requireNonNull(io, "io");
    }

    /**
     * @param directory a bundle folder
     * @return the checked bundle
     * @throws ModelLoadException naming the file, graph or field that is wrong
     */
    public static OnnxBundle load(Path directory) {
        BundleConfig config = withoutAbsentOptionalGraphs(readConfig(directory));
        BundleInventory inventory = BundleValidator.validate(config);
        return new OnnxBundle(config, inventory, GraphContracts.load(config));
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
                    BundleConfigReader.FILE_NAME,
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

    /**
     * @param directory a bundle folder
     * @return its parsed config
     * @throws ModelLoadException for a folder in another format, a missing config, or a bad field
     */
    static BundleConfig readConfig(Path directory) {
        Path config = directory.resolve(BundleConfigReader.FILE_NAME);
        if (!Files.isRegularFile(config) && isGandamuLayout(directory)) {
            throw new ModelLoadException("unsupported format (gandamu WebGPU bundle: " + GANDAMU_MANIFEST + " + "
                    + "shard_NNN.bin in " + directory.toAbsolutePath() + "): it is a custom weight format for a "
                    + "browser runtime, not ONNX, and ONNX Runtime cannot load it; use an ONNX bundle with "
                    + BundleConfigReader.FILE_NAME);
        }
        return BundleConfigReader.read(config);
    }

    /** @param directory a folder @return whether it looks like the gandamu custom WebGPU format */
    static boolean isGandamuLayout(Path directory) {
        return Files.isRegularFile(directory.resolve(GANDAMU_MANIFEST))
                && Files.isRegularFile(directory.resolve(GANDAMU_SHARD));
    }
}
