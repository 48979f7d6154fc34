package dev.flux2.onnx.tuning;

import ai.onnx.proto.OnnxMl.ModelProto;
import com.google.protobuf.CodedInputStream;
import dev.flux2.api.ModelLoadException;
import dev.flux2.onnx.attention.AttentionFuser;
import dev.flux2.onnx.bundle.GraphSignature;
import dev.flux2.onnx.weights.WeightDequantizer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Derives, stores and finds CPU-tuned graphs.
 *
 * <p>Where: in the bundle folder's {@value #FOLDER} subfolder when the bundle folder is writable and its shards are
 * regular files, so the derived graph's external-data locations are the original shard names and the new data file
 * is {@code .flux2-cpu/<key>-<fingerprint>.data}; otherwise (a read-only bundle, or a snapshot whose shards are
 * symbolic links into a blob store) in {@code <cache>/<fingerprint>/}, which holds <em>hard</em> links to the
 * original shards beside its own {@value #FOLDER} folder. ONNX Runtime 1.26 refuses external data that resolves
 * outside the folder it loads from, symbolic links included (docs/design-notes.md §5), so a cache folder on another
 * file system than the bundle cannot be used ({@code FLUX2_CACHE_DIR} moves it). No weight file is ever copied: only
 * re-typed tensors (fp16 scales widened to fp32) get new data.
 *
 * <p>Reuse and invalidation: the file names carry the first 16 hex digits of the source's {@link GraphFingerprint}
 * (graph bytes, sizes and times of the graph and its shards, the tuning, the rewriter version). A derived graph
 * whose name matches is reused; derived files of the same graph with another fingerprint are deleted when a new one
 * is written. Writes go to temporary files that are moved into place, data first and graph last, so a graph that
 * exists is complete. Thread-safe (no state; concurrent derivations of the same graph write identical files).
 */
public final class TunedGraphStore {
    /** The folder derived files live in, inside the bundle or the cache folder. */
    public static final String FOLDER = ".flux2-cpu";

    /** Suffix of the empty marker of a graph whose rewrite changed nothing (no attention to fuse). */
    static final String UNCHANGED = ".unchanged";

    private static final Logger LOG = LoggerFactory.getLogger(TunedGraphStore.class);

    private final Path cacheRoot;
    private final boolean useBundleFolder;

    /**
     * @param cacheRoot where derived graphs of read-only bundles go
     * @param useBundleFolder false to always use the cache folder (tests)
     */
    public TunedGraphStore(Path cacheRoot, boolean useBundleFolder) {
        this.cacheRoot = Objects.requireNonNull(cacheRoot, "cacheRoot");
        this.useBundleFolder = useBundleFolder;
    }

    /**
     * @return {@code $FLUX2_CACHE_DIR/cpu-tuned}, else {@code $XDG_CACHE_HOME/flux2-java/cpu-tuned}, else
     *     {@code ~/.cache/flux2-java/cpu-tuned}
     */
    public static Path defaultCacheRoot() {
        String flux2 = System.getenv("FLUX2_CACHE_DIR");
        if (flux2 != null && !flux2.isBlank()) {
            return Path.of(flux2, "cpu-tuned");
        }
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
        return base.resolve("flux2-java").resolve("cpu-tuned");
    }

    /**
     * Returns the derived graph for a source graph, deriving it first when none matches the source's fingerprint.
     *
     * @param graphKey the config key
     * @param source the source graph's signature (its file and external-data files)
     * @param tuning the edits
     * @return the derived graph
     * @throws ModelLoadException when the source cannot be read or the derived files cannot be written
     */
    public TunedGraph derive(String graphKey, GraphSignature source, CpuTuning tuning) {
        return deriveIfChanged(graphKey, source, tuning, true).orElseThrow();
    }

    /**
     * Like {@link #derive}, except that when the only edits are fused attention and dequantized weights and the graph
     * has neither attention nor block-16 weight products the rewrite recognises, no derived graph is written (an empty marker file remembers it) and the source graph is to be
     * run unchanged.
     *
     * @param graphKey the config key
     * @param source the source graph's signature
     * @param tuning the edits
     * @return the derived graph, or empty when the source is to be run as it is
     * @throws ModelLoadException when the source cannot be read or the derived files cannot be written
     */
    public Optional<TunedGraph> deriveIfChanged(String graphKey, GraphSignature source, CpuTuning tuning) {
        return deriveIfChanged(graphKey, source, tuning, tuning.editsCpu());
    }

    private Optional<TunedGraph> deriveIfChanged(
            String graphKey, GraphSignature source, CpuTuning tuning, boolean alwaysWrite) {
        Path graph = source.file().toAbsolutePath().normalize();
        Path bundle = graph.getParent();
        try {
            String fingerprint =
                    GraphFingerprint.of(graph, source.externalData().keySet(), tuning);
            String name = graphKey + "-" + fingerprint.substring(0, 16);
            Optional<Path> bundleHome = useBundleFolder && !linkedShards(bundle, source)
                    ? writableFolder(bundle.resolve(FOLDER))
                    : Optional.empty();
            Path dataFolder;
            Path home;
            if (bundleHome.isPresent()) {
                dataFolder = bundle;
                home = bundleHome.get();
            } else {
                dataFolder = cacheRoot.resolve(fingerprint.substring(0, 32));
                home = dataFolder.resolve(FOLDER);
                Files.createDirectories(home);
                linkShards(bundle, dataFolder, source);
            }
            Path derived = home.resolve(name + ".onnx");
            Path unchanged = home.resolve(name + UNCHANGED);
            if (Files.isRegularFile(derived)) {
                LOG.debug("using the derived {} graph {}", graphKey, derived);
                return Optional.of(new TunedGraph(graphKey, derived, dataFolder));
            }
            if (!alwaysWrite && Files.isRegularFile(unchanged)) {
                LOG.debug(
                        "the {} graph {} has nothing to fuse or dequantize (remembered by {}): run as it is",
                        graphKey,
                        graph,
                        unchanged);
                return Optional.empty();
            }
            long start = System.nanoTime();
            Optional<GraphRewriter.Report> report = write(graph, bundle, home, name, tuning, alwaysWrite);
            deleteStale(home, graphKey, name);
            if (report.isEmpty()) {
                Files.write(unchanged, new byte[0]);
                return Optional.empty();
            }
            LOG.debug(
                    "derived the {} graph {} in {} ms: {}",
                    graphKey,
                    derived,
                    (System.nanoTime() - start) / 1_000_000,
                    report.get());
            return Optional.of(new TunedGraph(graphKey, derived, dataFolder));
        } catch (IOException | RuntimeException e) {
            if (e instanceof ModelLoadException m) {
                throw m;
            }
            throw new ModelLoadException(
                    "cannot derive the " + tuning.label() + " " + graphKey + " graph from " + graph + ": "
                            + (e instanceof IOException io ? dev.flux2.spi.ModelFiles.reason(io) : e.getMessage()),
                    e);
        }
    }

    /** @return the report, or empty when nothing was written because the rewrite changed nothing */
    private static Optional<GraphRewriter.Report> write(
            Path graph, Path bundle, Path home, String name, CpuTuning tuning, boolean alwaysWrite) throws IOException {
        ModelProto model;
        try (InputStream in = Files.newInputStream(graph)) {
            CodedInputStream coded = CodedInputStream.newInstance(in);
            coded.setSizeLimit(Integer.MAX_VALUE);
            model = ModelProto.parseFrom(coded);
        }
        Path dataTmp = Files.createTempFile(home, name + ".data.", ".tmp");
        Path graphTmp = Files.createTempFile(home, name + ".onnx.", ".tmp");
        try {
            GraphRewriter.RewriteResult result;
            try (DataFileSink sink = new DataFileSink(dataTmp, FOLDER + "/" + name + ".data")) {
                result = new GraphRewriter(bundle, sink).rewrite(model, tuning);
            }
            Optional<AttentionFuser.Result> attention = result.report().attention();
            attention.ifPresent(a -> LOG.debug("{}: {}", graph.getFileName(), a.describe()));
            result.report().weights().ifPresent(w -> LOG.debug("{}: {}", graph.getFileName(), w.describe()));
            if (!alwaysWrite && !result.report().fusedOrDequantized()) {
                LOG.debug(
                        "the graph {} has no attention to fuse ({}) and no weights to dequantize ({}): run as it is",
                        graph,
                        attention.map(AttentionFuser.Result::describe).orElse("not looked for"),
                        result.report()
                                .weights()
                                .map(WeightDequantizer.Result::describe)
                                .orElse("not looked for"));
                return Optional.empty();
            }
            try (OutputStream out = Files.newOutputStream(graphTmp)) {
                result.model().writeTo(out);
            }
            if (result.report().newDataBytes() > 0) {
                move(dataTmp, home.resolve(name + ".data"));
            }
            move(graphTmp, home.resolve(name + ".onnx"));
            return Optional.of(result.report());
        } finally {
            Files.deleteIfExists(dataTmp);
            Files.deleteIfExists(graphTmp);
        }
    }

    private static void move(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private static boolean linkedShards(Path bundle, GraphSignature source) {
        return source.externalData().keySet().stream().anyMatch(l -> Files.isSymbolicLink(bundle.resolve(l)));
    }

    /**
     * Hard-links each shard of the source (its real file, through any symbolic link) into the cache folder, so its
     * location resolves there as in the bundle.
     */
    private static void linkShards(Path bundle, Path dataFolder, GraphSignature source) throws IOException {
        for (String location : source.externalData().keySet()) {
            Path target = bundle.resolve(location).toRealPath();
            Path link = dataFolder.resolve(location);
            if (Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                if (!Files.isSymbolicLink(link) && Files.isSameFile(link, target)) {
                    continue;
                }
                Files.delete(link);
            }
            Files.createDirectories(link.getParent());
            try {
                Files.createLink(link, target);
            } catch (IOException | UnsupportedOperationException e) {
                throw new IOException(
                        "cannot hard-link the shard " + target + " into the cache folder " + dataFolder
                                + " (" + e
                                + "); ONNX Runtime reads external data only from inside the folder it loads from, "
                                + "so the cache folder must be on the bundle's file system (set FLUX2_CACHE_DIR)",
                        e);
            }
        }
    }

    private static void deleteStale(Path home, String graphKey, String keep) throws IOException {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(home, graphKey + "-*")) {
            for (Path f : files) {
                String file = f.getFileName().toString();
                boolean derivedFile = file.endsWith(".onnx") || file.endsWith(".data") || file.endsWith(UNCHANGED);
                if (derivedFile && !file.startsWith(keep + ".")) {
                    LOG.debug("deleting the stale CPU-tuned file {}", f);
                    Files.deleteIfExists(f);
                }
            }
        }
    }

    /** @return the folder if it exists or can be created and written to */
    private static Optional<Path> writableFolder(Path folder) {
        try {
            Files.createDirectories(folder);
            Path probe = Files.createTempFile(folder, "probe", ".tmp");
            Files.delete(probe);
            return Optional.of(folder);
        } catch (IOException | SecurityException e) {
            LOG.debug("{} is not writable ({}), using the cache folder", folder, e.toString());
            return Optional.empty();
        }
    }

    /** Appends re-typed tensor data to a file, 64-byte aligned (as ONNX's own writer aligns large tensors). */
    private static final class DataFileSink implements GraphRewriter.NewData, AutoCloseable {
        private final OutputStream out;
        private final String location;
        private long size;

        DataFileSink(Path file, String location) throws IOException {
            this.out = new java.io.BufferedOutputStream(Files.newOutputStream(file), 1 << 20);
            this.location = location;
        }

        @Override
        public String location() {
            return location;
        }

        @Override
        public long append(byte[] bytes) throws IOException {
            long padding = (64 - size % 64) % 64;
            for (long i = 0; i < padding; i++) {
                out.write(0);
            }
            size += padding;
            long offset = size;
            out.write(bytes);
            size += bytes.length;
            return offset;
        }

        @Override
        public long size() {
            return size;
        }

        @Override
        public void close() throws IOException {
            out.close();
        }
    }
}
