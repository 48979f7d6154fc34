package dev.flux2.onnx.bundle;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flux2.api.ModelLoadException;
import dev.flux2.spi.ModelFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Checks that every file the backend uses is on disk with the promised size: each used graph file (and its
 * {@code shards.onnx_bytes}), each manifest (a JSON array of shard names), each listed shard (count, total and
 * largest size) and the tokenizer folder. A truncated download shows up as a size mismatch naming the file and
 * the expected and actual sizes. Stateless and thread-safe; reads only file sizes and the small manifests.
 */
public final class BundleValidator {
    /** The tokenizer files every bundle needs inside {@code tokenizer_dir}. */
    public static final List<String> TOKENIZER_FILES = List.of("tokenizer.json", "tokenizer_config.json");

    private static final ObjectMapper MAPPER = new ObjectMapper();
    /** A manifest lists shard names: the real ones are a few hundred bytes. */
    static final long MAX_MANIFEST_BYTES = 1L << 20;

    private BundleValidator() {}

    /**
     * @param config the parsed config
     * @return the files and the problems found (never throws for missing files)
     */
    public static BundleInventory inventory(BundleConfig config) {
        return inventory(config, Set.of());
    }

    /**
     * @param config the parsed config
     * @param absentOptional keys of optional graphs ({@link #isOptionalGraph}) the folder lacks: each is listed as
     *     an optional file without a problem, and its manifest is not looked for
     * @return the files, in the order the backend uses them, and the problems found (never throws for missing
     *     files)
     */
    public static BundleInventory inventory(BundleConfig config, Set<String> absentOptional) {
        return inventory(config, absentOptional, FileSizes.disk());
    }

    /**
     * @param config the parsed config
     * @param absentOptional as {@link #inventory(BundleConfig, Set)}
     * @param shardSizes where each manifest-listed shard's size comes from (the disk, or a hub's file list for
     *     shards not fetched)
     * @return the files and the problems found (never throws for missing files)
     */
    public static BundleInventory inventory(BundleConfig config, Set<String> absentOptional, FileSizes shardSizes) {
        Path dir = config.directory();
        Collector found = new Collector();
        config.file().ifPresent(f -> found.add(display(dir, f), "config", -1, sizeOf(f), false));
        Set<String> manifestsSeen = new HashSet<>();
        // Only the graphs the backend uses: other models entries may name files of other runtimes.
        for (ModelEntry entry : config.usedModels()) {
            if (absentOptional.contains(entry.key()) && isOptionalGraph(entry.key())) {
                long expected = entry.shards().map(ShardInfo::onnxBytes).orElse(-1L);
                found.add(entry.file(), "models." + entry.key() + ".file", expected, -1, true);
                continue;
            }
            checkGraphFile(dir, entry, found);
            if (entry.manifest().isPresent()
                    && manifestsSeen.add(entry.manifest().get())) {
                checkManifest(dir, entry, found, shardSizes);
            }
        }
        checkTokenizer(dir, config.text().tokenizerDir(), found);
        return new BundleInventory(dir, found.files(), found.problems);
    }

    /**
     * Graphs a bundle may name without shipping them: the pipeline runs without a fused denoiser (per step) and
     * without a VAE encoder (text-to-image only). The pinned q4 revision lacks both.
     *
     * @param key a {@code models} key
     * @return whether the graph is optional
     */
    static boolean isOptionalGraph(String key) {
        return key.equals(GraphKeys.TRANSFORMER_FUSED) || key.equals(GraphKeys.VAE_ENCODER);
    }

    /**
     * @param config the parsed config
     * @return the optional graphs ({@link #isOptionalGraph}) the config names whose graph file is not in the folder
     */
    public static List<ModelEntry> absentOptionalGraphs(BundleConfig config) {
        List<ModelEntry> absent = new ArrayList<>();
        for (ModelEntry entry : config.usedModels()) {
            // Only a graph that does not exist is absent: a folder or FIFO in its place is a problem, reported.
            if (isOptionalGraph(entry.key())
                    && ModelFiles.notRegular(config.directory().resolve(entry.file()))
                            .filter("does not exist"::equals)
                            .isPresent()) {
                absent.add(entry);
            }
        }
        return absent;
    }

    /**
     * @param config the parsed config
     * @return the inventory of a complete bundle
     * @throws dev.flux2.api.ModelLoadException listing every missing or mis-sized file
     */
    public static BundleInventory validate(BundleConfig config) {
        BundleInventory inventory = inventory(config);
        inventory.requireComplete();
        return inventory;
    }

    private static void checkGraphFile(Path dir, ModelEntry entry, Collector found) {
        String owner = "models." + entry.key() + ".file";
        long expected = entry.shards().map(ShardInfo::onnxBytes).orElse(-1L);
        long actual = sizeOf(dir.resolve(entry.file()));
        found.add(entry.file(), owner, expected, actual, false);
        if (actual < 0) {
            found.problem(
                    entry.file(),
                    "graph file " + entry.file() + " (" + owner + ") " + absence(dir.resolve(entry.file()), dir));
        } else if (expected >= 0 && actual != expected) {
            found.problem(
                    entry.file(),
                    "graph file " + entry.file() + " is " + actual + " bytes, expected " + expected + " (models."
                            + entry.key() + ".shards.onnx_bytes): truncated or incomplete download");
        }
    }

    private static void checkManifest(Path dir, ModelEntry entry, Collector found, FileSizes shardSizes) {
        String manifest = entry.manifest().orElseThrow();
        String owner = "models." + entry.key() + ".manifest";
        Path path = dir.resolve(manifest);
        long size = sizeOf(path);
        found.add(manifest, owner, -1, size, false);
        if (size < 0) {
            found.problem(manifest, "manifest " + manifest + " (" + owner + ") " + absence(path, dir));
            return;
        }
        List<String> shardNames;
        try {
            shardNames = readManifest(path);
        } catch (IOException | IllegalArgumentException e) {
            found.problem(manifest, "manifest " + manifest + " (" + owner + ") " + e.getMessage());
            return;
        }
        List<Long> sizes = new ArrayList<>();
        boolean allPresent = true;
        // Shards sit beside their manifest (a part taken from another folder brings its own).
        Path shardFolder = path.toAbsolutePath().getParent();
        for (String shard : shardNames) {
            String name = display(dir, shardFolder.resolve(shard));
            long actual = shardSizes.sizeOf(shardFolder.resolve(shard));
            found.add(name, manifest, -1, actual, false);
            sizes.add(actual);
            if (actual < 0) {
                allPresent = false;
                found.problem(
                        name,
                        "shard " + shard + " (listed in " + manifest + ") "
                                + absence(shardFolder.resolve(shard), shardFolder)
                                + shardSizes.absenceNote());
            }
        }
        Optional<ShardInfo> info = entry.shards();
        if (info.isPresent() && info.get().count() > 0) {
            ShardInfo s = info.get();
            if (shardNames.size() != s.count()) {
                found.problem(
                        manifest,
                        "manifest " + manifest + " lists " + shardNames.size() + " shard(s), expected " + s.count()
                                + " (models." + entry.key() + ".shards.count)");
            } else if (allPresent) {
                ShardSizeCheck.check(entry.key(), manifest, shardNames, sizes, s)
                        .ifPresent(problem -> found.problem(manifest, problem));
            }
        }
    }

    private static List<String> readManifest(Path path) throws IOException {
        JsonNode node;
        try {
            node = MAPPER.readTree(ModelFiles.readBounded(path, "manifest", MAX_MANIFEST_BYTES));
        } catch (ModelLoadException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("is not valid JSON: " + e.getOriginalMessage(), e);
        }
        if (node == null || !node.isArray() || node.isEmpty()) {
            throw new IllegalArgumentException("must be a non-empty JSON array of shard file names, got "
                    + (node == null ? "nothing" : abbreviate(node.toString())));
        }
        List<String> names = new ArrayList<>();
        for (JsonNode n : node) {
            if (!n.isTextual()
                    || n.textValue().isBlank()
                    || n.textValue().contains("/")
                    || n.textValue().contains("\\")
                    || n.textValue().equals("..")) {
                throw new IllegalArgumentException(
                        "must list plain shard file names inside the bundle folder, got " + abbreviate(n.toString()));
            }
            names.add(n.textValue());
        }
        return names;
    }

    private static void checkTokenizer(Path dir, String tokenizerDir, Collector found) {
        Path tokDir = dir.resolve(tokenizerDir);
        boolean folder = Files.isDirectory(tokDir);
        String folderProblem = "tokenizer folder " + tokenizerDir + " (tokenizer_dir) is missing from " + dir;
        if (!folder && Files.exists(tokDir)) {
            folderProblem = "tokenizer folder " + tokenizerDir + " (tokenizer_dir) is not a folder";
        }
        if (!folder) {
            found.problems.add(folderProblem);
        }
        for (String name : TOKENIZER_FILES) {
            String rel = display(dir, tokDir.resolve(name));
            long size = sizeOf(tokDir.resolve(name));
            found.add(rel, "tokenizer_dir", -1, size, false);
            if (!folder) {
                found.fileProblem(rel, folderProblem);
            } else if (size < 0) {
                found.problem(rel, "tokenizer file " + rel + " (tokenizer_dir) " + absence(tokDir.resolve(name), dir));
            }
        }
    }

    /**
     * @param dir the bundle folder
     * @param file a file
     * @return the file's path relative to the bundle folder with {@code /} separators, or its absolute path when it
     *     lies elsewhere (a part taken from another folder)
     */
    public static String display(Path dir, Path file) {
        Path base = dir.toAbsolutePath().normalize();
        Path abs = file.toAbsolutePath().normalize();
        if (!abs.startsWith(base)) {
            return abs.toString();
        }
        StringBuilder rel = new StringBuilder();
        for (Path part : base.relativize(abs)) {
            rel.append(rel.length() == 0 ? "" : "/").append(part);
        }
        return rel.toString();
    }

    /**
     * @return why a file whose size is -1 is unusable: "is missing from the folder", or what it is instead (a
     *     folder, a FIFO or device, a dangling link), so that such a file is not reported as missing
     */
    private static String absence(Path file, Path folder) {
        String problem = ModelFiles.notRegular(file).orElse("is not a regular file");
        return problem.equals("does not exist") ? "is missing from " + folder : problem;
    }

    /** @return the size, or -1 when there is no such file; an I/O error is not reported as a missing file */
    private static long sizeOf(Path path) {
        try {
            return Files.isRegularFile(path) ? Files.size(path) : -1;
        } catch (IOException e) {
            throw new ModelLoadException("cannot read the size of " + path + ": " + ModelFiles.reason(e), e);
        }
    }

    /** The files in the order found, the problem of each, and every problem in the order found. */
    private static final class Collector {
        private final List<BundleFile> files = new ArrayList<>();
        private final Map<String, String> fileProblems = new HashMap<>();
        private final List<String> problems = new ArrayList<>();

        void add(String path, String owner, long expected, long actual, boolean optional) {
            files.add(new BundleFile(path, owner, expected, actual, optional, ""));
        }

        /** Records a problem of the bundle that belongs to one file. */
        void problem(String path, String problem) {
            problems.add(problem);
            fileProblem(path, problem);
        }

        /** Attaches an already recorded problem to a file (a file may carry several). */
        void fileProblem(String path, String problem) {
            fileProblems.merge(path, problem, (a, b) -> a + "; " + b);
        }

        List<BundleFile> files() {
            List<BundleFile> out = new ArrayList<>(files.size());
            for (BundleFile f : files) {
                String problem = fileProblems.getOrDefault(f.path(), "");
                out.add(new BundleFile(f.path(), f.owner(), f.expectedBytes(), f.actualBytes(), f.optional(), problem));
            }
            return out;
        }
    }

    private static String abbreviate(String s) {
        return s.length() > 80 ? s.substring(0, 77) + "..." : s;
    }
}
