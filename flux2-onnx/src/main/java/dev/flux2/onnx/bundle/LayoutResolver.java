package dev.flux2.onnx.bundle;

import dev.flux2.api.ModelLoadException;
import dev.flux2.api.ModelRole;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts a model together from its folder and the parts taken from elsewhere (docs/bundle-format.md §2, §4).
 *
 * <ul>
 *   <li>A folder with {@code flux2-config.json} (the MarkShark2 layout) is what its config names; the config's
 *       graphs are still recognised by signature, and one whose signature is another part's is an error.</li>
 *   <li>A folder without it is what its graphs are: each {@code .onnx} file (also in direct subfolders) is recognised
 *       by its signature ({@link GraphClassifier}); two graphs claiming one part is an error naming both; graphs of no
 *       known role are ignored (logged at DEBUG) when every required part is found, and listed with their inputs in
 *       the error otherwise. The tokenizer is {@code tokenizer/} or the folder itself; sizes come from the graphs
 *       ({@code text_seq_len} and {@code context_dim} from the sizes they fix, else {@link KleinDefaults}) and the
 *       generation defaults are klein 4B's.</li>
 *   <li>A component replaces one part ({@link ModelRole}): a folder provides the part as it would as a model
 *       folder (its config is used when it reads as a whole bundle's, else its graphs by signature), a file is one
 *       graph (whose signature must be that part's) or, for the tokenizer, its {@code tokenizer.json}. A denoiser
 *       taken from elsewhere brings its fused graph only from a folder. When the model folder has no tokenizer, the
 *       text encoder's folder may provide it.</li>
 * </ul>
 *
 * Required: tokenizer, text encoder, denoiser, VAE decoder; the VAE encoder is optional. The text encoder and the
 * denoiser must fit ({@link ContextFit}). Reads graph headers only. Stateless.
 */
public final class LayoutResolver {
    /** The parts a model cannot do without. */
    static final List<ModelRole> REQUIRED =
            List.of(ModelRole.TOKENIZER, ModelRole.TEXT_ENCODER, ModelRole.DENOISER, ModelRole.VAE_DECODER);

    private static final Logger LOG = LoggerFactory.getLogger(LayoutResolver.class);
    private static final String GANDAMU_MANIFEST = "manifest.json";
    private static final String GANDAMU_SHARD = "shard_000.bin";

    private LayoutResolver() {}

    /**
     * @param directory a folder
     * @return whether it looks like a model this backend reads: a {@code flux2-config.json}, an ONNX graph in it or
     *     a direct subfolder, or the gandamu WebGPU format (so that it is reported as unsupported)
     */
    public static boolean looksLikeModel(Path directory) {
        return Files.isRegularFile(directory.resolve(BundleConfigReader.FILE_NAME))
                || isGandamuLayout(directory)
                || FolderScan.hasGraphs(directory);
    }

    /**
     * @param directory a folder
     * @return whether it holds the gandamu custom WebGPU format ({@code manifest.json} and {@code shard_000.bin})
     */
    public static boolean isGandamuLayout(Path directory) {
        return Files.isRegularFile(directory.resolve(GANDAMU_MANIFEST))
                && Files.isRegularFile(directory.resolve(GANDAMU_SHARD));
    }

    /**
     * @param directory the model folder
     * @param components parts taken from elsewhere, by role
     * @return the layout: usable (with a config) or not (with every problem)
     * @throws ModelLoadException for a folder that does not exist or is in an unsupported format, an unreadable
     *     {@code flux2-config.json} of the model folder, an unreadable graph, or a component that cannot play its
     *     part
     */
    public static BundleLayout resolve(Path directory, Map<ModelRole, Path> components) {
        Path dir = directory.toAbsolutePath().normalize();
        if (!Files.isDirectory(dir)) {
            throw new ModelLoadException("model directory " + dir + " "
                    + (Files.exists(dir) ? "is a file, not a folder" : "does not exist"));
        }
        Path configFile = dir.resolve(BundleConfigReader.FILE_NAME);
        java.util.Optional<String> notRegular = dev.flux2.spi.ModelFiles.notRegular(configFile);
        if (notRegular.isPresent() && !notRegular.get().equals("does not exist")) {
            // Not read as "no config" (a layout guessed from the graphs instead) and never opened (a FIFO blocks).
            throw new ModelLoadException("bundle config " + configFile + " " + notRegular.get());
        }
        boolean hasConfig = Files.isRegularFile(configFile);
        if (!hasConfig && isGandamuLayout(dir)) {
            throw new ModelLoadException("unsupported format (gandamu WebGPU bundle: " + GANDAMU_MANIFEST
                    + " + shard_NNN.bin in " + dir + "): it is a custom weight format for a browser runtime, not "
                    + "ONNX, and ONNX Runtime cannot load it; use an ONNX export of FLUX.2 [klein]");
        }
        // With parts from elsewhere the folder may be partial (a transformer-only folder), so its config is a hint.
        FolderParts base = PartsReader.read(dir, !components.isEmpty());
        if (components.isEmpty() && base.config().isPresent()) {
            return configured(dir, base.config().get());
        }
        Map<ModelRole, ModelPart> chosen = new EnumMap<>(ModelRole.class);
        chosen.putAll(base.parts());
        components.forEach((role, source) -> chosen.put(role, ExternalPartReader.read(role, source)));
        List<String> problems = new ArrayList<>();
        base.conflicts().forEach((role, conflict) -> {
            if (!components.containsKey(role)) {
                problems.add(
                        conflict + " (name the one to use with a component, --component " + role.label() + "=FILE)");
            }
        });
        if (!chosen.containsKey(ModelRole.TOKENIZER)) {
            textEncoderFolderTokenizer(components).ifPresent(t -> chosen.put(ModelRole.TOKENIZER, t));
        }
        for (ModelRole role : REQUIRED) {
            if (!chosen.containsKey(role) && !base.conflicts().containsKey(role)) {
                problems.add(missing(dir, role, base));
            }
        }
        if (problems.isEmpty()) {
            problems.addAll(ContextFit.problems(
                    signature(chosen.get(ModelRole.TEXT_ENCODER).entries().get(0)),
                    signature(chosen.get(ModelRole.DENOISER).entries().get(0))));
        }
        String name = name(base, components, chosen);
        Map<ModelRole, String> origins = new EnumMap<>(ModelRole.class);
        chosen.forEach((role, part) -> origins.put(role, part.origin()));
        if (!problems.isEmpty()) {
            return new BundleLayout(dir, name, Optional.empty(), origins, base.graphs(), problems);
        }
        if (!base.unknownGraphs().isEmpty()) {
            LOG.debug(
                    "{}: ignoring graphs of no known role: {}",
                    dir,
                    base.unknownGraphs().stream()
                            .map(GraphClassification::describe)
                            .collect(Collectors.joining("; ")));
        }
        BundleConfig config = assemble(dir, base, chosen, components);
        return new BundleLayout(dir, name, Optional.of(config), origins, base.graphs(), List.of());
    }

    /** A folder its config describes, as the config says, after checking each role's graph is what it claims. */
    private static BundleLayout configured(Path dir, BundleConfig config) {
        Map<ModelRole, String> origins = new EnumMap<>(ModelRole.class);
        for (ModelRole role : ModelRole.values()) {
            if (role != ModelRole.VAE_ENCODER || config.vaeEncoder().isPresent()) {
                origins.put(role, config.describedBy());
            }
        }
        List<String> problems = new ArrayList<>();
        for (ModelEntry entry : config.usedModels()) {
            Optional<ModelRole> claimed = roleOfKey(entry.key());
            Path file = config.graphPath(entry);
            if (claimed.isEmpty() || !Files.isRegularFile(file)) {
                continue; // split decoder parts have no signature of their own; a missing file is reported later
            }
            GraphClassification g;
            try {
                g = FolderScan.classify(file);
            } catch (ModelLoadException e) {
                continue; // a truncated or unreadable graph is reported by the file and signature checks
            }
            g.role()
                    .filter(r -> r.modelRole() != claimed.get())
                    .ifPresent(r -> problems.add("models." + entry.key() + " of " + BundleConfigReader.FILE_NAME
                            + " names " + entry.file() + ", but its signature is a " + r.label() + "'s, not a "
                            + claimed.get().label() + "'s: " + g.describe()));
        }
        String name = SignatureFamily.MARKSHARK2.label() + " (" + BundleConfigReader.FILE_NAME + ")";
        return problems.isEmpty()
                ? new BundleLayout(dir, name, Optional.of(config), origins, List.of(), List.of())
                : new BundleLayout(dir, name, Optional.empty(), origins, List.of(), problems);
    }

    private static Optional<ModelRole> roleOfKey(String key) {
        for (GraphKind r : GraphKind.values()) {
            if (r.key().equals(key)) {
                return Optional.of(r.modelRole());
            }
        }
        return Optional.empty();
    }

    private static Optional<ModelPart> textEncoderFolderTokenizer(Map<ModelRole, Path> components) {
        Path source = components.get(ModelRole.TEXT_ENCODER);
        if (source == null) {
            return Optional.empty();
        }
        Path folder =
                Files.isDirectory(source) ? source : source.toAbsolutePath().getParent();
        return PartsReader.read(folder, true).part(ModelRole.TOKENIZER);
    }

    private static String missing(Path dir, ModelRole role, FolderParts base) {
        if (role == ModelRole.TOKENIZER) {
            return "no tokenizer: neither " + dir.resolve(KleinDefaults.TOKENIZER_DIR) + " nor " + dir
                    + " (nor a graph's folder) holds tokenizer.json";
        }
        if (base.graphs().isEmpty() && base.config().isEmpty()) {
            return "no " + label(role) + ": " + dir + " has no " + BundleConfigReader.FILE_NAME + " and no .onnx graph";
        }
        boolean splitDecoder = role == ModelRole.VAE_DECODER
                && base.unknownGraphs().stream().anyMatch(g -> g.note().contains("split VAE decoder"));
        if (splitDecoder) {
            return "no VAE decoder graph: " + dir + " holds the parts of a split VAE decoder (pre-attention, attention,"
                    + " post stages), which only a " + BundleConfigReader.FILE_NAME + " puts in order, and it has no "
                    + BundleConfigReader.FILE_NAME;
        }
        boolean fusedOnly = role == ModelRole.DENOISER
                && base.graphs().stream()
                        .anyMatch(g -> g.role()
                                .filter(r -> r == GraphKind.FUSED_DENOISER)
                                .isPresent());
        return "no " + label(role) + " graph"
                + (fusedOnly ? " (only a fused multi-step denoiser, which needs the per-step one beside it)" : "")
                + ": no graph in " + dir + " has its signature";
    }

    private static String label(ModelRole role) {
        return role.label().replace('-', ' ').replace("vae", "VAE");
    }

    private static GraphSignature signature(ModelEntry entry) {
        try {
            return OnnxHeaderReader.read(Path.of(entry.file()));
        } catch (IOException e) {
            throw new ModelLoadException("graph " + entry.file() + " cannot be read: " + e.getMessage(), e);
        }
    }

    private static String name(FolderParts base, Map<ModelRole, Path> components, Map<ModelRole, ModelPart> chosen) {
        String baseName;
        if (base.config().isPresent()) {
            baseName = SignatureFamily.MARKSHARK2.label() + " (" + BundleConfigReader.FILE_NAME + ")";
        } else {
            Set<SignatureFamily> families = new LinkedHashSet<>();
            for (GraphClassification g : base.graphs()) {
                if (g.role().isPresent()) {
                    families.add(g.family());
                }
            }
            baseName = (families.size() == 1 ? families.iterator().next().label() : "mixed") + " (graph signatures)";
        }
        if (components.isEmpty()) {
            return baseName;
        }
        return "composed: " + baseName + " with the " + labels(components, ", ") + " from elsewhere";
    }

    /** @return the roles' labels in role order */
    private static String labels(Map<ModelRole, Path> components, String separator) {
        return components.keySet().stream().sorted().map(ModelRole::label).collect(Collectors.joining(separator));
    }

    private static BundleConfig assemble(
            Path dir, FolderParts base, Map<ModelRole, ModelPart> chosen, Map<ModelRole, Path> components) {
        Map<String, ModelEntry> models = new LinkedHashMap<>();
        for (ModelRole role :
                List.of(ModelRole.TEXT_ENCODER, ModelRole.DENOISER, ModelRole.VAE_DECODER, ModelRole.VAE_ENCODER)) {
            ModelPart part = chosen.get(role);
            if (part == null) {
                continue;
            }
            for (ModelEntry e : part.entries()) {
                boolean optional =
                        e.key().equals(GraphKeys.TRANSFORMER_FUSED) || e.key().equals(GraphKeys.VAE_ENCODER);
                if (optional && !Files.isRegularFile(Path.of(e.file()))) {
                    LOG.debug("{} names {}, which is missing: running without it", part.origin(), e.file());
                    continue;
                }
                models.put(e.key(), relative(dir, e));
            }
        }
        Optional<BundleConfig> baseConfig = base.config();
        ModelPart textEncoder = chosen.get(ModelRole.TEXT_ENCODER);
        Optional<BundleConfig> textConfig = textEncoder.config().or(() -> baseConfig);
        int[] sizes = textSizes(
                signature(textEncoder.entries().get(0)),
                signature(chosen.get(ModelRole.DENOISER).entries().get(0)),
                textConfig);
        Path tokenizer = chosen.get(ModelRole.TOKENIZER).tokenizer().orElseThrow();
        String tokenizerDir = BundleValidator.display(dir, tokenizer);
        TextSettings text = new TextSettings(
                sizes[0],
                sizes[1],
                textConfig.map(c -> c.text().contextClip()).orElse(0f),
                textConfig.map(c -> c.text().zeroPaddedContext()).orElse(false),
                tokenizerDir.isEmpty() ? "." : tokenizerDir);
        ModelDefaults defaults = baseConfig
                .map(BundleConfig::defaults)
                .orElseGet(() -> KleinDefaults.defaults(KleinDefaults.MODEL_NAME + "-onnx-" + familyOf(base)));
        if (!components.isEmpty()) {
            defaults = new ModelDefaults(
                    defaults.modelName(),
                    defaults.variant() + "+" + labels(components, "+"),
                    defaults.distilled(),
                    defaults.numSteps(),
                    defaults.guidance(),
                    defaults.width(),
                    defaults.height());
        }
        DecoderLayout decoder = chosen.get(ModelRole.VAE_DECODER).decoder().orElseThrow();
        Optional<Boolean> img2img = components.containsKey(ModelRole.VAE_ENCODER)
                ? Optional.empty()
                : baseConfig.flatMap(BundleConfig::supportsImg2img);
        return new BundleConfig(dir, baseConfig.flatMap(BundleConfig::file), defaults, text, models, decoder, img2img);
    }

    private static String familyOf(FolderParts base) {
        Set<SignatureFamily> families = base.graphs().stream()
                .filter(g -> g.role().isPresent())
                .map(GraphClassification::family)
                .collect(Collectors.toSet());
        return families.size() == 1 ? families.iterator().next().label() : "mixed";
    }

    private static ModelEntry relative(Path dir, ModelEntry e) {
        return new ModelEntry(
                e.key(),
                BundleValidator.display(dir, Path.of(e.file())),
                e.manifest().map(m -> BundleValidator.display(dir, Path.of(m))),
                e.names(),
                e.shards(),
                e.settings());
    }

    /**
     * {@code text_seq_len} and {@code context_dim} of a composed or config-less model: as the graphs fix them (the
     * text encoder's, else the denoiser's), else as the config that describes the text encoder (or the model folder)
     * says, else klein 4B's.
     */
    private static int[] textSizes(GraphSignature textEncoder, GraphSignature denoiser, Optional<BundleConfig> config) {
        long length = fixed(textEncoder.inputs(), KnownNames.TOKEN_IDS, 1)
                .or(() -> fixed(textEncoder.outputs(), KnownNames.TEXT_CONTEXT_OUT, 1))
                .or(() -> fixed(denoiser.inputs(), KnownNames.TEXT_CONTEXT_IN, 1))
                .or(() -> config.map(c -> (long) c.text().sequenceLength()))
                .orElse((long) KleinDefaults.TEXT_SEQ_LEN);
        long width = fixed(textEncoder.outputs(), KnownNames.TEXT_CONTEXT_OUT, 2)
                .or(() -> fixed(denoiser.inputs(), KnownNames.TEXT_CONTEXT_IN, 2))
                .or(() -> config.map(c -> (long) c.text().contextDim()))
                .orElse((long) KleinDefaults.CONTEXT_DIM);
        return new int[] {Math.toIntExact(length), Math.toIntExact(width)};
    }

    private static Optional<Long> fixed(List<TensorSignature> tensors, List<String> names, int index) {
        for (String name : names) {
            for (TensorSignature t : tensors) {
                if (t.name().equals(name)) {
                    Dim d = t.dimOrFree(index);
                    return d.isFixed() && d.value() > 0 ? Optional.of(d.value()) : Optional.empty();
                }
            }
        }
        return Optional.empty();
    }
}
