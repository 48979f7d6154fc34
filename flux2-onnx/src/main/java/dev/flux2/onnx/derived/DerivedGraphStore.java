package dev.flux2.onnx.derived;

import ai.onnx.proto.OnnxMl.ModelProto;
import com.google.protobuf.CodedInputStream;
import dev.flux2.api.ModelLoadException;
import dev.flux2.onnx.bundle.GraphSignature;
import dev.flux2.onnx.passes.GraphPass;
import dev.flux2.onnx.passes.PassContext;
import dev.flux2.onnx.passes.PassRunner;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Derives, stores and finds derived graphs: a source graph of the bundle rewritten by graph passes ({@link
 * PassRunner}), as {@link DerivationPlan} decides per graph.
 *
 * <p>Where: in the bundle folder's {@value #FOLDER} subfolder when the bundle folder is writable and its shards are
 * regular files, so the derived graph's external-data locations are the original shard names and the new data file
 * is {@code .flux2-derived/<key>-<fingerprint>.data}; otherwise (a read-only bundle, or a snapshot whose shards are
 * symbolic links into a blob store) in {@code <cache>/<fingerprint>/}, which holds <em>hard</em> links to the
 * original shards beside its own {@value #FOLDER} folder. ONNX Runtime 1.26 refuses external data that resolves
 * outside the folder it loads from, symbolic links included (docs/design-notes.md §5), so a cache folder on another
 * file system than the bundle cannot be used ({@code FLUX2_CACHE_DIR} moves it). No weight file is ever copied: only
 * re-typed tensors (fp16 scales widened to fp32) get new data. (Before the graph passes the folder was
 * {@code .flux2-cpu} and the cache {@code cpu-tuned}; graphs derived there are not used, and may be deleted.)
 *
 * <p>Reuse and invalidation: the file names carry the first 16 hex digits of the source's {@link GraphFingerprint}
 * (graph bytes, sizes and times of the graph and its shards, the ids, versions and parameters of the passes). A
 * derived graph whose name matches is reused; a source that no pass changes is remembered by an empty marker and run
 * as it is; derived files of the same graph with another fingerprint are deleted when a new one
 * is written. Writes go to temporary files that are moved into place, data first and graph last, so a graph that
 * exists is complete. Thread-safe (no state; concurrent derivations of the same graph write identical files).
 */
public final class DerivedGraphStore {
    /** The folder derived files live in, inside the bundle or the cache folder. */
    public static final String FOLDER = ".flux2-derived";

    /** Suffix of the empty marker of a graph that no pass changed (no attention to fuse, say). */
    static final String UNCHANGED = ".unchanged";

    private static final Logger LOG = LoggerFactory.getLogger(DerivedGraphStore.class);

    /** How old a temporary file must be to be taken as abandoned by a derivation that was killed. */
    static final java.time.Duration ABANDONED_AFTER = java.time.Duration.ofHours(1);

    private final Path cacheRoot;
    private final boolean useBundleFolder;

    /**
     * @param cacheRoot where derived graphs of read-only bundles go
     * @param useBundleFolder false to always use the cache folder (tests)
     */
    public DerivedGraphStore(Path cacheRoot, boolean useBundleFolder) {
        this.cacheRoot = Objects.requireNonNull(cacheRoot, "cacheRoot");
        this.useBundleFolder = useBundleFolder;
    }

    /**
     * @return {@code $FLUX2_CACHE_DIR/derived-graphs}, else {@code $XDG_CACHE_HOME/flux2-java/derived-graphs}, else
     *     {@code ~/.cache/flux2-java/derived-graphs}
     */
    public static Path defaultCacheRoot() {
        String flux2 = System.getenv("FLUX2_CACHE_DIR");
        if (flux2 != null && !flux2.isBlank()) {
            return Path.of(flux2, "derived-graphs");
        }
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
        return base.resolve("flux2-java").resolve("derived-graphs");
    }

    /**
     * Returns the derived graph for a source graph, deriving it first when none matches the source's fingerprint.
     *
     * @param graphKey the config key
     * @param source the source graph's signature (its file and external-data files)
     * @param passes the passes, at least one (applied in {@link PassRunner}'s order)
     * @return the derived graph, or empty when no pass changes the source (which then runs as it is; an empty marker
     *     file remembers it)
     * @throws ModelLoadException when the source cannot be read or the derived files cannot be written
     */
    public Optional<DerivedGraph> derive(String graphKey, GraphSignature source, List<GraphPass> passes) {
        if (passes.isEmpty()) {
            throw new IllegalArgumentException("no pass to derive the " + graphKey + " graph with");
        }
        return deriveOrdered(graphKey, source, PassRunner.inOrder(passes));
    }

    private Optional<DerivedGraph> deriveOrdered(String graphKey, GraphSignature source, List<GraphPass> passes) {
        Path graph = source.file().toAbsolutePath().normalize();
        Path bundle = graph.getParent();
        try {
            String fingerprint =
                    GraphFingerprint.of(graph, source.externalData().keySet(), passes);
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
            deleteAbandonedTemporaries(home);
            Path derived = home.resolve(name + ".onnx");
            Path unchanged = home.resolve(name + UNCHANGED);
            if (Files.isRegularFile(derived)) {
                LOG.debug("using the derived {} graph {}", graphKey, derived);
                return Optional.of(new DerivedGraph(graphKey, derived, dataFolder));
            }
            if (Files.isRegularFile(unchanged)) {
                LOG.debug(
                        "no pass changes the {} graph {} (remembered by {}): run as it is", graphKey, graph, unchanged);
                return Optional.empty();
            }
            long start = System.nanoTime();
            Optional<PassRunner.Run> report = write(graph, bundle, home, name, passes);
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
                    report.get().describe());
            return Optional.of(new DerivedGraph(graphKey, derived, dataFolder));
        } catch (IOException | RuntimeException e) {
            if (e instanceof ModelLoadException m) {
                throw m;
            }
            throw new ModelLoadException(
                    "cannot derive the " + graphKey + " graph from " + graph + " (" + keys(passes) + "): "
                            + (e instanceof IOException io ? dev.flux2.spi.ModelFiles.reason(io) : e.getMessage()),
                    e);
        }
    }

    private static String keys(List<GraphPass> passes) {
        return String.join(", ", passes.stream().map(GraphPass::key).toList());
    }

    /** @return what the passes did, or empty when nothing was written because no pass changed anything */
    private static Optional<PassRunner.Run> write(
            Path graph, Path bundle, Path home, String name, List<GraphPass> passes) throws IOException {
        ModelProto model;
        try (InputStream in = Files.newInputStream(graph)) {
            CodedInputStream coded = CodedInputStream.newInstance(in);
            coded.setSizeLimit(Integer.MAX_VALUE);
            model = ModelProto.parseFrom(coded);
        }
        Path dataTmp = Files.createTempFile(home, name + ".data.", ".tmp");
        Path graphTmp = Files.createTempFile(home, name + ".onnx.", ".tmp");
        try {
            PassRunner.Run run;
            long newData;
            try (DataFileSink sink = new DataFileSink(dataTmp, FOLDER + "/" + name + ".data")) {
                run = PassRunner.run(model, passes, new PassContext(bundle, sink));
                newData = sink.size();
            }
            LOG.debug("{}: {}", graph.getFileName(), run.describe());
            if (!run.changed()) {
                LOG.debug("no pass changes the graph {} ({}): run as it is", graph, run.describe());
                return Optional.empty();
            }
            try (OutputStream out = Files.newOutputStream(graphTmp)) {
                run.model().writeTo(out);
            }
            if (newData > 0) {
                move(dataTmp, home.resolve(name + ".data"));
            }
            move(graphTmp, home.resolve(name + ".onnx"));
            return Optional.of(run);
        } finally {
            Files.deleteIfExists(dataTmp);
            Files.deleteIfExists(graphTmp);
        }
    }

    /**
     * Deletes the temporary files a derivation killed mid-write left (kill -9, power loss): those older than {@link
     * #ABANDONED_AFTER}, so that a derivation in progress in another process keeps its own.
     */
    private static void deleteAbandonedTemporaries(Path home) {
        long cutoff = System.currentTimeMillis() - ABANDONED_AFTER.toMillis();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(home, "*.tmp")) {
            for (Path f : files) {
                if (Files.getLastModifiedTime(f).toMillis() < cutoff) {
                    LOG.debug("deleting the abandoned temporary file {}", f);
                    Files.deleteIfExists(f);
                }
            }
        } catch (IOException e) {
            LOG.debug("cannot clean the temporary files of {}: {}", home, e.toString());
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
                    LOG.debug("deleting the stale derived file {}", f);
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
    private static final class DataFileSink implements PassContext.DataSink, AutoCloseable {
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
