package dev.flux2.onnx;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtProvider;
import dev.flux2.api.MemoryPolicy;
import dev.flux2.api.ModelLoadException;
import dev.flux2.api.ModelRole;
import dev.flux2.api.ModelSummary;
import dev.flux2.onnx.bundle.BundleConfig;
import dev.flux2.onnx.bundle.BundleFile;
import dev.flux2.onnx.bundle.BundleInventory;
import dev.flux2.onnx.bundle.BundleIo;
import dev.flux2.onnx.bundle.BundleLayout;
import dev.flux2.onnx.bundle.BundleValidator;
import dev.flux2.onnx.bundle.ExternalDataCheck;
import dev.flux2.onnx.bundle.FileSizes;
import dev.flux2.onnx.bundle.GraphClassification;
import dev.flux2.onnx.bundle.GraphClassifier;
import dev.flux2.onnx.bundle.GraphContracts;
import dev.flux2.onnx.bundle.GraphKeys;
import dev.flux2.onnx.bundle.GraphSignature;
import dev.flux2.onnx.bundle.LayoutResolver;
import dev.flux2.onnx.bundle.ModelEntry;
import dev.flux2.onnx.bundle.OnnxBundle;
import dev.flux2.onnx.bundle.RoleMappings;
import dev.flux2.onnx.bundle.TensorSignature;
import dev.flux2.onnx.memory.AutoMemoryPolicy;
import dev.flux2.onnx.memory.MemoryDecision;
import dev.flux2.onnx.memory.MemorySnapshot;
import dev.flux2.onnx.memory.SessionFootprint;
import dev.flux2.onnx.passes.MhaFusion;
import dev.flux2.onnx.session.SharedEnvironment;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Describes a model folder for humans without loading weights: the layout detected and where each part comes from,
 * files with expected and actual sizes and what is wrong with each (external-data files included, checked against
 * the bytes each graph reads from them), every readable graph's real inputs and outputs with the part it plays and
 * which tensor plays which part, and as details the defaults, the fused convention, the providers of the ONNX Runtime
 * on the classpath and every problem found. Only an unreadable config, an unreadable graph or an unusable component is
 * an error: an incomplete model is described, with its problems, so a downloader can learn from it which files to
 * fetch. Optional graphs the config names but the folder lacks are listed as optional files (and in
 * {@code absent_optional_graphs}), as {@link OnnxBundle#load} runs without them. Stateless.
 */
final class BundleInspector {
    /** Detail key: the tokenizer folder, relative to the model folder (or absolute when elsewhere). */
    static final String TOKENIZER_DIR = "tokenizer_dir";
    /** Detail key: the {@code text_seq_len} the tokenizer pads and truncates to. */
    static final String TEXT_SEQ_LEN = "text_seq_len";
    /** Detail key: the policy {@link MemoryPolicy#AUTO} would choose in this process, and why. */
    static final String MEMORY_POLICY_AUTO = "memory_policy_auto";
    /** Detail key: the layout detected. */
    static final String LAYOUT = "layout";
    /**
     * Detail key: {@code false} when the parts found do not make a model (a part missing, two graphs claiming one;
     * {@code problems} says why), {@code true} otherwise (files may still be missing or short).
     */
    static final String USABLE = "parts_complete";
    /**
     * Detail key, present only when the hub's file list stood in for files not fetched: which external-data files
     * were checked against their listed sizes instead of their size on disk.
     */
    static final String LISTED_SIZES = "shard_sizes";
    /** Detail key: the attention blocks backend option {@code attention=fused} fuses per graph, and why not others. */
    static final String ATTENTION_FUSION = "attention_fusion";

    private BundleInspector() {}

    /**
     * @param directory the model folder
     * @param components parts taken from elsewhere
     * @return the summary
     * @throws ModelLoadException when the folder's config or a graph cannot be read, or a component cannot be used
     */
    static ModelSummary inspect(Path directory, Map<ModelRole, Path> components) {
        return inspect(directory, components, Map.of());
    }

    /**
     * As {@link #inspect(Path, Map)} for a folder that lacks files a hub lists with their sizes (a snapshot fetched
     * without external data): each external-data file absent from the folder is checked against its listed size,
     * and the detail {@value #LISTED_SIZES} names the files so checked.
     *
     * @param directory the model folder
     * @param components parts taken from elsewhere
     * @param listedSizes sizes of files absent from the folder, by path relative to it with {@code /} separators
     * @return the summary
     * @throws ModelLoadException when the folder's config or a graph cannot be read, or a component cannot be used
     */
    static ModelSummary inspect(Path directory, Map<ModelRole, Path> components, Map<String, Long> listedSizes) {
        FileSizes sizes = listedSizes.isEmpty() ? FileSizes.disk() : FileSizes.listed(directory, listedSizes);
        ModelSummary summary = describe(directory, components, sizes);
        if (sizes.fromListing().isEmpty()) {
            return summary;
        }
        Map<String, String> details = new LinkedHashMap<>();
        details.put(
                LISTED_SIZES,
                "checked against the hub's file list, not downloaded: " + String.join(", ", sizes.fromListing()));
        details.putAll(summary.details());
        return new ModelSummary(
                summary.directory(), summary.backend(), summary.variant(), summary.files(), summary.graphs(), details);
    }

    private static ModelSummary describe(Path directory, Map<ModelRole, Path> components, FileSizes sizes) {
        BundleLayout layout = LayoutResolver.resolve(directory, components);
        if (layout.config().isEmpty()) {
            return unusable(directory, layout, sizes);
        }
        BundleConfig named = layout.config().get();
        // Described as the backend opens it: an optional graph the revision lacks is not a missing file.
        List<ModelEntry> absent = BundleValidator.absentOptionalGraphs(named);
        Set<String> absentKeys = absent.stream().map(ModelEntry::key).collect(Collectors.toSet());
        BundleConfig config = named.withoutModels(absentKeys);
        BundleInventory inventory = BundleValidator.inventory(named, absentKeys, sizes);
        List<String> problems = new ArrayList<>(inventory.problems());
        List<ModelSummary.FileEntry> files = new ArrayList<>();
        for (BundleFile f : inventory.files()) {
            files.add(new ModelSummary.FileEntry(
                    f.path(), f.expectedBytes(), f.actualBytes(), f.optional(), f.problem()));
        }
        Map<String, GraphSignature> signatures = new LinkedHashMap<>();
        for (ModelEntry entry : config.usedModels()) {
            try {
                GraphSignature s = GraphContracts.readSignature(config, entry);
                signatures.put(entry.key(), s);
                // A shard the inventory already reports missing is not reported twice.
                Map<String, Long> unreported = new LinkedHashMap<>(s.externalData());
                inventory.files().stream().filter(f -> !f.exists()).forEach(f -> unreported.remove(f.path()));
                List<String> shardProblems = ExternalDataCheck.problems(
                        entry.key(), new GraphSignature(s.file(), s.inputs(), s.outputs(), unreported), sizes);
                problems.addAll(shardProblems);
                addExternalData(config.directory(), s, shardProblems, files, sizes);
            } catch (ModelLoadException e) {
                if (inventory.files().stream().anyMatch(f -> f.path().equals(entry.file()) && f.exists())) {
                    problems.add(e.getMessage());
                }
            }
        }
        String fused = "none";
        Map<String, Map<String, String>> mappings = Map.of();
        if (signatures.size() == config.usedModelKeys().size()) {
            try {
                BundleIo io = GraphContracts.check(config, signatures);
                fused = io.fusedConvention().name().toLowerCase(Locale.ROOT);
                io.fused().filter(f -> !f.usable()).ifPresent(f -> problems.add("fused graph unusable: " + f.detail()));
                mappings = RoleMappings.of(io);
            } catch (ModelLoadException e) {
                problems.add(e.getMessage());
                fused = "unknown";
            }
        }
        List<ModelSummary.GraphEntry> graphs = new ArrayList<>();
        for (ModelEntry entry : config.usedModels()) {
            GraphSignature s = signatures.get(entry.key());
            graphs.add(new ModelSummary.GraphEntry(
                    entry.key(),
                    entry.file(),
                    s == null ? List.of() : tensors(s.inputs()),
                    s == null ? List.of() : tensors(s.outputs()),
                    role(entry.key(), s),
                    mappings.getOrDefault(entry.key(), Map.of())));
        }
        for (GraphClassification g : layout.unknownGraphs()) {
            graphs.add(ignored(config.directory(), g));
        }
        Map<String, String> details = new LinkedHashMap<>(
                details(layout, config, fused, absent, problems, memoryFacts(signatures, config, sizes)));
        details.put(ATTENTION_FUSION, attentionFusion(signatures));
        return new ModelSummary(
                directory, OnnxBackendProvider.NAME, config.defaults().variant(), files, graphs, details);
    }

    /**
     * What backend option {@code attention=fused} does to each graph it looks at (the transformers and the VAE
     * decoder's attention), for example {@code transformer: 50 of 50 softmax nodes fused as attention}; read from the
     * graph messages only (no weights).
     */
    private static String attentionFusion(Map<String, GraphSignature> signatures) {
        List<String> parts = new ArrayList<>();
        for (String key : List.of(
                GraphKeys.TRANSFORMER,
                GraphKeys.TRANSFORMER_FUSED,
                GraphKeys.VAE_DECODER_ATTN_CHUNK,
                GraphKeys.VAE_DECODER)) {
            GraphSignature s = signatures.get(key);
            if (s == null) {
                continue;
            }
            try (java.io.InputStream in = Files.newInputStream(s.file())) {
                com.google.protobuf.CodedInputStream coded = com.google.protobuf.CodedInputStream.newInstance(in);
                coded.setSizeLimit(Integer.MAX_VALUE);
                parts.add(key + ": "
                        + MhaFusion.inspect(ai.onnx.proto.OnnxMl.ModelProto.parseFrom(coded))
                                .describe());
            } catch (IOException | RuntimeException e) {
                parts.add(key + ": not readable (" + e.getMessage() + ")");
            }
        }
        return parts.isEmpty() ? "no graph with attention" : String.join("; ", parts);
    }

    /** The parts do not make a model: describe every graph found, its files and what is missing. */
    private static ModelSummary unusable(Path directory, BundleLayout layout, FileSizes sizes) {
        Path dir = layout.directory();
        List<ModelSummary.FileEntry> files = new ArrayList<>();
        List<ModelSummary.GraphEntry> graphs = new ArrayList<>();
        List<String> problems = new ArrayList<>(layout.problems());
        for (GraphClassification g : layout.graphs()) {
            files.add(
                    new ModelSummary.FileEntry(BundleValidator.display(dir, g.file()), -1, size(g.file()), false, ""));
            List<String> shardProblems =
                    ExternalDataCheck.problems(g.file().getFileName().toString(), g.signature(), sizes);
            problems.addAll(shardProblems);
            addExternalData(dir, g.signature(), shardProblems, files, sizes);
            graphs.add(g.role().isPresent() ? found(dir, g) : ignored(dir, g));
        }
        Map<String, String> d = new LinkedHashMap<>();
        d.put(LAYOUT, layout.name());
        d.put(USABLE, "false");
        d.put("parts", origins(layout));
        d.put("problems", String.join("; ", problems));
        return new ModelSummary(directory, OnnxBackendProvider.NAME, "unknown", files, graphs, d);
    }

    private static ModelSummary.GraphEntry found(Path dir, GraphClassification g) {
        return new ModelSummary.GraphEntry(
                g.role().orElseThrow().key(),
                BundleValidator.display(dir, g.file()),
                tensors(g.signature().inputs()),
                tensors(g.signature().outputs()),
                g.role().orElseThrow().modelRole().label() + " (" + g.family().label() + ")",
                Map.of());
    }

    private static ModelSummary.GraphEntry ignored(Path dir, GraphClassification g) {
        return new ModelSummary.GraphEntry(
                "ignored",
                BundleValidator.display(dir, g.file()),
                tensors(g.signature().inputs()),
                tensors(g.signature().outputs()),
                "none: " + g.note(),
                Map.of());
    }

    /**
     * Lists each external-data file a graph reads that no manifest listed, with the problem the graph's references
     * show (missing, or shorter than the bytes read from it).
     */
    private static void addExternalData(
            Path dir, GraphSignature s, List<String> problems, List<ModelSummary.FileEntry> files, FileSizes sizes) {
        Path folder = s.file().toAbsolutePath().getParent();
        for (String location : s.externalData().keySet()) {
            Path file = folder.resolve(location).normalize();
            String name = BundleValidator.display(dir, file);
            if (files.stream().anyMatch(f -> f.path().equals(name))) {
                continue;
            }
            String problem = problems.stream().filter(p -> p.contains(location)).collect(Collectors.joining("; "));
            long size;
            try {
                size = sizes.sizeOf(file);
            } catch (ModelLoadException e) {
                size = -1; // ExternalDataCheck reported why
            }
            files.add(new ModelSummary.FileEntry(name, -1, size, false, problem));
        }
    }

    private static long size(Path file) {
        try {
            return Files.isRegularFile(file) ? Files.size(file) : -1;
        } catch (IOException e) {
            return -1;
        }
    }

    /** @return the part the graph plays and whose names it uses, for example {@code denoiser (hlhc)} */
    private static String role(String key, GraphSignature s) {
        ModelRole role = switch (key) {
            case GraphKeys.TEXT_ENCODER -> ModelRole.TEXT_ENCODER;
            case GraphKeys.TRANSFORMER, GraphKeys.TRANSFORMER_FUSED -> ModelRole.DENOISER;
            case GraphKeys.VAE_ENCODER -> ModelRole.VAE_ENCODER;
            default -> ModelRole.VAE_DECODER;
        };
        String part = key.equals(GraphKeys.TRANSFORMER_FUSED) ? " (fused multi-step)" : "";
        if (!key.equals(GraphKeys.VAE_DECODER) && role == ModelRole.VAE_DECODER) {
            return role.label() + " (split chain: " + key + ")";
        }
        String family =
                s == null ? "unread" : GraphClassifier.classify(s).family().label();
        return role.label() + part + " (" + family + ")";
    }

    private static List<ModelSummary.TensorEntry> tensors(List<TensorSignature> list) {
        List<ModelSummary.TensorEntry> out = new ArrayList<>();
        for (TensorSignature t : list) {
            out.add(new ModelSummary.TensorEntry(t.name(), t.elementType().name(), t.shapeText()));
        }
        return out;
    }

    /**
     * What {@link MemoryPolicy#AUTO} would choose for this bundle in this process, and the weights it weighs; unknown
     * while a graph or one of its files is missing.
     */
    private static Map<String, String> memoryFacts(
            Map<String, GraphSignature> signatures, BundleConfig config, FileSizes sizes) {
        Map<String, String> d = new LinkedHashMap<>();
        if (signatures.size() != config.usedModelKeys().size()) {
            d.put(MEMORY_POLICY_AUTO, "unknown (a graph could not be read)");
            return d;
        }
        try {
            SessionFootprint footprint = SessionFootprint.of(signatures, file -> {
                long size = sizes.sizeOf(file);
                if (size < 0) {
                    throw new UncheckedIOException(
                            "cannot read the size of " + file, new IOException(file + " is not a regular file"));
                }
                return size;
            });
            d.put(
                    "session_weights",
                    footprint.graphs().stream()
                            .map(g ->
                                    g.key() + " " + String.format(Locale.ROOT, "%.1f MiB", g.totalBytes() / 1048576.0))
                            .collect(Collectors.joining(", ")));
            MemoryDecision decision = AutoMemoryPolicy.decide(MemoryPolicy.AUTO, footprint, MemorySnapshot.current());
            d.put(MEMORY_POLICY_AUTO, decision.policy().name().toLowerCase(Locale.ROOT) + ": " + decision.reason());
        } catch (UncheckedIOException | ModelLoadException e) {
            d.put(MEMORY_POLICY_AUTO, "unknown (" + e.getMessage() + ")");
        }
        return d;
    }

    private static String origins(BundleLayout layout) {
        return layout.origins().entrySet().stream()
                .map(e -> e.getKey().label() + ": " + e.getValue())
                .collect(Collectors.joining("; "));
    }

    private static Map<String, String> details(
            BundleLayout layout,
            BundleConfig config,
            String fused,
            List<ModelEntry> absent,
            List<String> problems,
            Map<String, String> memory) {
        Map<String, String> d = new LinkedHashMap<>();
        d.put(LAYOUT, layout.name());
        d.put(USABLE, "true");
        d.put("parts", origins(layout));
        d.put("model_name", config.defaults().modelName());
        d.put("distilled", Boolean.toString(config.defaults().distilled()));
        d.put("default_steps", Integer.toString(config.defaults().numSteps()));
        d.put("default_guidance", Double.toString(config.defaults().guidance()));
        d.put(
                "default_size",
                config.defaults().width() + "x" + config.defaults().height());
        d.put(TEXT_SEQ_LEN, Integer.toString(config.text().sequenceLength()));
        d.put("context_dim", Integer.toString(config.text().contextDim()));
        d.put(TOKENIZER_DIR, config.text().tokenizerDir());
        d.put("supports_image_input", Boolean.toString(config.supportsImageInput()));
        d.put(
                "vae_decoder",
                config.decoder().unified()
                        ? "unified ("
                                + (config.file().isPresent()
                                        ? "models." + GraphKeys.VAE_DECODER
                                        : config.requiredModel(GraphKeys.VAE_DECODER)
                                                .file())
                                + ")"
                        : "split: " + String.join(" -> ", config.decoder().graphKeys()));
        d.put("fused_denoiser_convention", fused);
        d.put(
                "absent_optional_graphs",
                absent.isEmpty()
                        ? "none"
                        : String.join(
                                ", ",
                                absent.stream()
                                        .map(e -> e.key() + " (" + e.file() + ")")
                                        .toList()));
        d.put(
                "ignored_models",
                config.ignoredModelKeys().isEmpty() ? "none" : String.join(", ", config.ignoredModelKeys()));
        d.put(
                "ignored_graphs",
                layout.unknownGraphs().isEmpty()
                        ? "none"
                        : layout.unknownGraphs().stream()
                                .map(g -> BundleValidator.display(config.directory(), g.file()) + " (" + g.note() + ")")
                                .collect(Collectors.joining("; ")));
        d.put("execution_providers_available", runtimeFact(BundleInspector::availableProviders));
        d.put("onnxruntime_version", runtimeFact(() -> SharedEnvironment.get().getVersion()));
        d.putAll(memory);
        d.put("problems", problems.isEmpty() ? "none" : String.join("; ", problems));
        return d;
    }

    /**
     * A fact only the ONNX Runtime natives can tell. The description of the files must not depend on them (the
     * downloader inspects a folder on any platform), so a runtime that cannot load is reported, not thrown.
     */
    private static String runtimeFact(Supplier<String> fact) {
        try {
            return fact.get();
        } catch (RuntimeException | LinkageError e) {
            return "unknown (ONNX Runtime could not be loaded: " + e + ")";
        }
    }

    private static String availableProviders() {
        List<String> providers = new ArrayList<>();
        SharedEnvironment.get(); // on the library FLUX2_ORT_LIBRARY names, if set
        for (OrtProvider p : OrtEnvironment.getAvailableProviders()) {
            providers.add(p.name());
        }
        return String.join(", ", providers);
    }
}
