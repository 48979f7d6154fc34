package dev.flux2.onnx.stage;

import dev.flux2.api.InvalidRequestException;
import dev.flux2.onnx.bundle.BundleConfig;
import dev.flux2.onnx.bundle.BundleIo;
import dev.flux2.onnx.bundle.Dim;
import dev.flux2.onnx.bundle.GraphSignature;
import dev.flux2.onnx.bundle.ModelEntry;
import dev.flux2.onnx.bundle.TensorSignature;
import dev.flux2.onnx.derived.DerivedGraph;
import dev.flux2.onnx.memory.SessionFootprint;
import dev.flux2.onnx.options.OptimizationLevel;
import dev.flux2.onnx.session.SessionSpec;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Builds the {@link SessionSpec} of a graph for the tensors about to be fed to it.
 *
 * <p>Symbolic dimensions are pinned from the real shapes of the fed tensors, symbol by symbol as the graph names
 * them, rather than from what a symbol is assumed to mean: with reference images {@code image_seq} is N + M, not
 * (H/16)(W/16), and a stage's {@code chunk_seq} is whatever this call feeds. A symbol fed two different sizes is
 * left free (ONNX Runtime then reports the real mismatch). Pinning can be switched off
 * ({@code pin_dimensions=false}) so that one session serves every resolution. Immutable.
 */
public final class SessionSpecs {
    private final BundleConfig config;
    private final BundleIo io;
    private final boolean pinDimensions;
    private final Optional<OptimizationLevel> levelOverride;
    private final Map<String, Long> weights;
    private final Map<String, DerivedGraph> derived;

    /**
     * @param config the bundle config
     * @param io the checked graph signatures
     * @param pinDimensions whether to pin symbolic dimensions per call
     * @param levelOverride an optimization level for every graph, overriding the config's per-graph setting
     */
    public SessionSpecs(
            BundleConfig config, BundleIo io, boolean pinDimensions, Optional<OptimizationLevel> levelOverride) {
        this(config, io, pinDimensions, levelOverride, Map.of());
    }

    /**
     * @param config the bundle config
     * @param io the checked graph signatures
     * @param pinDimensions whether to pin symbolic dimensions per call
     * @param levelOverride an optimization level for every graph, overriding the config's per-graph setting
     * @param derived derived graphs opened instead of the bundle's, by config key (same inputs and outputs)
     */
    public SessionSpecs(
            BundleConfig config,
            BundleIo io,
            boolean pinDimensions,
            Optional<OptimizationLevel> levelOverride,
            Map<String, DerivedGraph> derived) {
        this.derived = Map.copyOf(derived);
        this.config = Objects.requireNonNull(config, "config");
        this.io = Objects.requireNonNull(io, "io");
        this.pinDimensions = pinDimensions;
        this.levelOverride = Objects.requireNonNull(levelOverride, "levelOverride");
        Map<String, Long> w = new TreeMap<>();
        try {
            SessionFootprint.of(config, io).graphs().forEach(g -> w.put(g.key(), g.totalBytes()));
        } catch (java.io.UncheckedIOException e) {
            // Sizes unknown (graphs described but not on disk): weights count as 0, nothing is kept or opened ahead.
            w.clear();
        }
        this.weights = Map.copyOf(w);
    }

    /**
     * A graph may fix sizes that are symbolic in the seed bundle (a static 512² export fixes the image tokens);
     * feeding another size would fail inside ONNX Runtime with a message about internal nodes, so it is reported
     * here, naming the graph, the input and the size it supports.
     */
    private static void requireFixedDims(ModelEntry entry, GraphSignature signature, Map<String, long[]> shapes) {
        for (TensorSignature input : signature.inputs()) {
            long[] shape = shapes.get(input.name());
            if (shape == null || !input.rankKnown()) {
                continue;
            }
            boolean fits = shape.length == input.rank();
            for (int i = 0; fits && i < shape.length; i++) {
                Dim d = input.dim(i);
                fits = !d.isFixed() || d.value() == shape[i];
            }
            if (!fits) {
                throw new InvalidRequestException("graph " + entry.key() + " (" + entry.file() + ") takes input '"
                        + input.name() + "' of shape " + input.shapeText() + ", but this generation needs "
                        + Arrays.toString(shape) + ": the bundle's graph is fixed to other sizes (choose the size "
                        + "it was exported for)");
            }
        }
    }

    /**
     * @param graphKey a config key
     * @return the graph's weights (its file and external data), 0 for a graph the bundle does not use
     */
    public long weightBytes(String graphKey) {
        return weights.getOrDefault(graphKey, 0L);
    }

    /**
     * @param graphKey a config key
     * @param inputShapes the shape of each tensor about to be fed, by input name
     * @return the spec
     * @throws InvalidRequestException when a fed shape contradicts a size the graph fixes
     */
    public SessionSpec forInputs(String graphKey, Map<String, long[]> inputShapes) {
        ModelEntry entry = config.requiredModel(graphKey);
        requireFixedDims(entry, io.signature(graphKey), inputShapes);
        Map<String, Long> dims = new TreeMap<>();
        if (pinDimensions) {
            Set<String> conflicting = new HashSet<>();
            GraphSignature signature = io.signature(graphKey);
            for (TensorSignature input : signature.inputs()) {
                long[] shape = inputShapes.get(input.name());
                if (shape == null || shape.length != input.rank()) {
                    continue;
                }
                for (int i = 0; i < shape.length; i++) {
                    Dim d = input.dim(i);
                    if (d.isFixed() || d.symbol().isEmpty()) {
                        continue;
                    }
                    Long previous = dims.putIfAbsent(d.symbol(), shape[i]);
                    if (previous != null && previous != shape[i]) {
                        conflicting.add(d.symbol());
                    }
                }
            }
            dims.keySet().removeAll(conflicting);
        }
        OptimizationLevel level = levelOverride.orElseGet(
                () -> entry.settings().graphOptimizationLevel().orElse(OptimizationLevel.ALL));
        DerivedGraph t = derived.get(graphKey);
        if (t != null) {
            return new SessionSpec(
                    graphKey,
                    t.graphFile(),
                    dims,
                    level,
                    weights.getOrDefault(graphKey, 0L),
                    Optional.of(t.dataFolder()));
        }
        return new SessionSpec(
                graphKey, config.directory().resolve(entry.file()), dims, level, weights.getOrDefault(graphKey, 0L));
    }
}
