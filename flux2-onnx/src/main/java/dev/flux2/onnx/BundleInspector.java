package dev.flux2.onnx;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtProvider;
import dev.flux2.api.ModelLoadException;
import dev.flux2.api.ModelSummary;
import dev.flux2.onnx.config.BundleConfig;
import dev.flux2.onnx.config.BundleFile;
import dev.flux2.onnx.config.BundleInventory;
import dev.flux2.onnx.config.BundleValidator;
import dev.flux2.onnx.config.ModelEntry;
import dev.flux2.onnx.graph.BundleIo;
import dev.flux2.onnx.graph.ExternalDataCheck;
import dev.flux2.onnx.graph.GraphContracts;
import dev.flux2.onnx.graph.GraphSignature;
import dev.flux2.onnx.graph.TensorSignature;
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
 * Describes a bundle folder for humans without loading weights: files with expected and actual sizes and what is
 * wrong with each, every readable graph's real inputs and outputs (from the graph headers), and as details the
 * config's defaults, the fused convention, the providers of the ONNX Runtime on the classpath and every problem
 * found. Only an unreadable config is an error: an incomplete bundle is described, with its problems, so a
 * downloader can learn from it which files to fetch. Optional graphs the config names but the folder lacks are
 * listed as optional files (and in {@code absent_optional_graphs}), as {@link OnnxBundle#load} runs without them.
 * Stateless.
 */
final class BundleInspector {
    /** Detail key: the {@code tokenizer_dir} folder, relative to the bundle folder. */
    static final String TOKENIZER_DIR = "tokenizer_dir";
    /** Detail key: the {@code text_seq_len} the tokenizer pads and truncates to. */
    static final String TEXT_SEQ_LEN = "text_seq_len";

    private BundleInspector() {}

    /**
     * @param directory the bundle folder
     * @return the summary
     * @throws ModelLoadException when the folder has no readable config
     */
    static ModelSummary inspect(Path directory) {
        BundleConfig named = OnnxBundle.readConfig(directory);
        // Described as the backend opens it: an optional graph the revision lacks is not a missing file.
        List<ModelEntry> absent = BundleValidator.absentOptionalGraphs(named);
        Set<String> absentKeys = absent.stream().map(ModelEntry::key).collect(Collectors.toSet());
        BundleConfig config = named.withoutModels(absentKeys);
        BundleInventory inventory = BundleValidator.inventory(named, absentKeys);
        List<String> problems = new ArrayList<>(inventory.problems());
        Map<String, GraphSignature> signatures = new LinkedHashMap<>();
        List<ModelSummary.GraphEntry> graphs = new ArrayList<>();
        for (ModelEntry entry : config.usedModels()) {
            try {
                GraphSignature s = GraphContracts.readSignature(config, entry);
                signatures.put(entry.key(), s);
                // A shard the inventory already reports missing is not reported twice.
                Map<String, Long> unreported = new LinkedHashMap<>(s.externalData());
                inventory.files().stream().filter(f -> !f.exists()).forEach(f -> unreported.remove(f.path()));
                problems.addAll(ExternalDataCheck.problems(
                        entry.key(), new GraphSignature(s.file(), s.inputs(), s.outputs(), unreported)));
                graphs.add(new ModelSummary.GraphEntry(
                        entry.key(), entry.file(), tensors(s.inputs()), tensors(s.outputs())));
            } catch (ModelLoadException e) {
                if (inventory.files().stream().anyMatch(f -> f.path().equals(entry.file()) && f.exists())) {
                    problems.add(e.getMessage());
                }
                graphs.add(new ModelSummary.GraphEntry(entry.key(), entry.file(), List.of(), List.of()));
            }
        }
        String fused = "none";
        if (signatures.size() == config.usedModelKeys().size()) {
            try {
                BundleIo io = GraphContracts.check(config, signatures);
                fused = io.fusedConvention().name().toLowerCase(Locale.ROOT);
                io.fused().filter(f -> !f.usable()).ifPresent(f -> problems.add("fused graph unusable: " + f.detail()));
            } catch (ModelLoadException e) {
                problems.add(e.getMessage());
                fused = "unknown";
            }
        }
        List<ModelSummary.FileEntry> files = new ArrayList<>();
        for (BundleFile f : inventory.files()) {
            files.add(new ModelSummary.FileEntry(
                    f.path(), f.expectedBytes(), f.actualBytes(), f.optional(), f.problem()));
        }
        return new ModelSummary(
                directory,
                OnnxBackendProvider.NAME,
                config.defaults().variant(),
                files,
                graphs,
                details(config, fused, absent, problems));
    }

    private static List<ModelSummary.TensorEntry> tensors(List<TensorSignature> list) {
        List<ModelSummary.TensorEntry> out = new ArrayList<>();
        for (TensorSignature t : list) {
            out.add(new ModelSummary.TensorEntry(t.name(), t.elementType().name(), t.shapeText()));
        }
        return out;
    }

    private static Map<String, String> details(
            BundleConfig config, String fused, List<ModelEntry> absent, List<String> problems) {
        Map<String, String> d = new LinkedHashMap<>();
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
                        ? "unified (models.vae_decoder)"
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
        d.put("execution_providers_available", runtimeFact(BundleInspector::availableProviders));
        d.put(
                "onnxruntime_version",
                runtimeFact(() -> OrtEnvironment.getEnvironment().getVersion()));
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
        for (OrtProvider p : OrtEnvironment.getAvailableProviders()) {
            providers.add(p.name());
        }
        return String.join(", ", providers);
    }
}
