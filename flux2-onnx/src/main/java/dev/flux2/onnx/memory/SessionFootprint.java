package dev.flux2.onnx.memory;

import dev.flux2.onnx.bundle.BundleConfig;
import dev.flux2.onnx.bundle.BundleIo;
import dev.flux2.onnx.bundle.GraphSignature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToLongFunction;

/**
 * What the bundle's sessions need in native memory, estimated from the sizes of their weights with factors measured
 * on this backend (docs/performance.md, "Memory settings of the ONNX backend", item 5, and "The AUTO memory
 * policy"):
 *
 * <ul>
 *   <li>while a session is created its memory peaks at {@value #CREATION_PEAK_FACTOR} × its weights (ONNX
 *       Runtime's {@code MatMulNBits} pre-packing reads the memory-mapped external data and writes the packed
 *       copy);</li>
 *   <li>once created it settles at {@value #SETTLED_EXTERNAL_FACTOR} × its external weights (the packed q4 copy;
 *       the mapped file pages are not counted) plus 1 × the weights stored inside the {@code .onnx} file (copied
 *       into the session).</li>
 * </ul>
 *
 * <p>RESIDENT holds every session: its peak is the sum of the settled sizes plus the largest creation surplus
 * (the last session created on top of the others). SEQUENTIAL holds one stage: its peak is the largest creation
 * peak. Activations and ONNX Runtime's arenas come on top: {@link AutoMemoryPolicy} reserves working memory for
 * them. Immutable.
 *
 * @param graphs every graph the pipeline may open
 */
public record SessionFootprint(List<GraphWeights> graphs) {
    /** Peak during creation, per byte of weights. */
    public static final double CREATION_PEAK_FACTOR = 1.3;
    /** Memory held after creation, per byte of external weights. */
    public static final double SETTLED_EXTERNAL_FACTOR = 0.65;

    /** Copies. */
    public SessionFootprint {
        graphs = List.copyOf(graphs);
    }

    /**
     * The weights of one graph.
     *
     * @param key the config key
     * @param inlineBytes the {@code .onnx} file's size (weights stored inside it, and the graph)
     * @param externalBytes the sizes of the external-data files it references
     */
    public record GraphWeights(String key, long inlineBytes, long externalBytes) {
        /** @return all weight bytes */
        public long totalBytes() {
            return inlineBytes + externalBytes;
        }

        /** @return the estimated peak while its session is created */
        public long creationPeakBytes() {
            return (long) (CREATION_PEAK_FACTOR * totalBytes());
        }

        /** @return the estimated memory its session holds once created */
        public long settledBytes() {
            return inlineBytes + (long) (SETTLED_EXTERNAL_FACTOR * externalBytes);
        }
    }

    /**
     * @param config the bundle config
     * @param io the checked graph signatures (for each graph's external-data files)
     * @return the weights of every graph the config uses, from the file sizes on disk
     */
    public static SessionFootprint of(BundleConfig config, BundleIo io) {
        Map<String, GraphSignature> signatures = new LinkedHashMap<>();
        for (String key : config.usedModelKeys()) {
            signatures.put(key, io.signature(key));
        }
        return of(signatures);
    }

    /**
     * @param signatures each graph's signature by config key (for its file and external-data files)
     * @return the weights of those graphs, from the file sizes on disk
     * @throws UncheckedIOException when a file's size cannot be read (a missing file)
     */
    public static SessionFootprint of(Map<String, GraphSignature> signatures) {
        return of(signatures, SessionFootprint::size);
    }

    /**
     * @param signatures each graph's signature by config key (for its file and external-data files)
     * @param sizeOf each file's size (for {@code flux2 info --model REPO}: a shard not fetched has its listed size)
     * @return the weights of those graphs
     * @throws UncheckedIOException when a file's size cannot be read (a missing file)
     */
    public static SessionFootprint of(Map<String, GraphSignature> signatures, ToLongFunction<Path> sizeOf) {
        List<GraphWeights> graphs = new ArrayList<>();
        for (Map.Entry<String, GraphSignature> e : signatures.entrySet()) {
            String key = e.getKey();
            GraphSignature signature = e.getValue();
            Path file = signature.file();
            Path folder = file.toAbsolutePath().getParent();
            long external = 0;
            for (String location : signature.externalData().keySet()) {
                external += sizeOf.applyAsLong(folder.resolve(location));
            }
            graphs.add(new GraphWeights(key, sizeOf.applyAsLong(file), external));
        }
        return new SessionFootprint(graphs);
    }

    private static long size(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the size of " + file, e);
        }
    }

    /** @return all weight bytes */
    public long weightBytes() {
        return graphs.stream().mapToLong(GraphWeights::totalBytes).sum();
    }

    /** @return the estimated peak with every session resident */
    public long residentPeakBytes() {
        long settled = graphs.stream().mapToLong(GraphWeights::settledBytes).sum();
        long surplus = graphs.stream()
                .mapToLong(g -> g.creationPeakBytes() - g.settledBytes())
                .max()
                .orElse(0);
        return settled + Math.max(0, surplus);
    }

    /** @return the estimated peak with one stage at a time: the largest creation peak */
    public long sequentialPeakBytes() {
        return graphs.stream().mapToLong(GraphWeights::creationPeakBytes).max().orElse(0);
    }

    /** @return the graph with the most weights, if any */
    public Optional<GraphWeights> largest() {
        return graphs.stream().max(Comparator.comparingLong(GraphWeights::totalBytes));
    }
}
