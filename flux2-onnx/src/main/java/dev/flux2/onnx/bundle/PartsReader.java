package dev.flux2.onnx.bundle;

import dev.flux2.api.ModelLoadException;
import dev.flux2.api.ModelRole;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the parts a folder provides: from its {@code flux2-config.json} when it has one (the MarkShark2 layout), else
 * from its graphs, recognised by their signatures. Entry files and manifests come out absolute. Stateless.
 */
final class PartsReader {
    private static final Logger LOG = LoggerFactory.getLogger(PartsReader.class);

    private PartsReader() {}

    /**
     * @param folder a folder
     * @param lenient for a folder another part is taken from: a {@code flux2-config.json} that cannot be read (for
     *     example one that describes only some parts) is passed over and the graphs are recognised by signature;
     *     otherwise such a config is an error
     * @return its parts
     * @throws ModelLoadException for an unreadable config (not lenient) or an unreadable graph
     */
    static FolderParts read(Path folder, boolean lenient) {
        Path dir = folder.toAbsolutePath().normalize();
        if (Files.isRegularFile(dir.resolve(BundleConfigReader.FILE_NAME))) {
            try {
                return fromConfig(BundleConfigReader.read(dir.resolve(BundleConfigReader.FILE_NAME)));
            } catch (ModelLoadException e) {
                if (!lenient) {
                    throw e;
                }
                LOG.debug(
                        "{} cannot be read as a whole bundle's config ({}); finding its graphs by signature",
                        dir,
                        e.getMessage());
            }
        }
        return discover(dir);
    }

    /**
     * @param config a parsed {@code flux2-config.json}
     * @return the parts it names
     */
    static FolderParts fromConfig(BundleConfig config) {
        Map<ModelRole, ModelPart> parts = new EnumMap<>(ModelRole.class);
        String origin = config.describedBy();
        parts.put(ModelRole.TEXT_ENCODER, configPart(config, ModelRole.TEXT_ENCODER, List.of(GraphKeys.TEXT_ENCODER)));
        List<String> denoiser = new ArrayList<>(List.of(GraphKeys.TRANSFORMER));
        config.fusedTransformer().ifPresent(e -> denoiser.add(e.key()));
        parts.put(ModelRole.DENOISER, configPart(config, ModelRole.DENOISER, denoiser));
        ModelPart decoder =
                configPart(config, ModelRole.VAE_DECODER, config.decoder().graphKeys());
        parts.put(
                ModelRole.VAE_DECODER,
                new ModelPart(
                        ModelRole.VAE_DECODER,
                        decoder.entries(),
                        Optional.of(config.decoder()),
                        Optional.empty(),
                        Optional.of(config),
                        origin));
        config.vaeEncoder()
                .ifPresent(e -> parts.put(
                        ModelRole.VAE_ENCODER,
                        configPart(config, ModelRole.VAE_ENCODER, List.of(GraphKeys.VAE_ENCODER))));
        parts.put(
                ModelRole.TOKENIZER,
                new ModelPart(
                        ModelRole.TOKENIZER,
                        List.of(),
                        Optional.empty(),
                        Optional.of(config.tokenizerDirectory().normalize()),
                        Optional.of(config),
                        origin));
        return new FolderParts(config.directory(), Optional.of(config), parts, List.of(), Map.of());
    }

    private static ModelPart configPart(BundleConfig config, ModelRole role, List<String> keys) {
        List<ModelEntry> entries = new ArrayList<>();
        for (String key : keys) {
            entries.add(absolute(config.directory(), config.requiredModel(key)));
        }
        return new ModelPart(
                role, entries, Optional.empty(), Optional.empty(), Optional.of(config), config.describedBy());
    }

    private static ModelEntry absolute(Path dir, ModelEntry e) {
        return new ModelEntry(
                e.key(),
                dir.resolve(e.file()).normalize().toString(),
                e.manifest().map(m -> dir.resolve(m).normalize().toString()),
                e.names(),
                e.shards(),
                e.settings());
    }

    /**
     * @param dir a folder, absolute
     * @return the parts its graphs play, by signature
     */
    static FolderParts discover(Path dir) {
        List<GraphClassification> graphs = FolderScan.scan(dir);
        Map<GraphKind, List<GraphClassification>> byRole = new LinkedHashMap<>();
        for (GraphClassification g : graphs) {
            g.role()
                    .ifPresent(r ->
                            byRole.computeIfAbsent(r, k -> new ArrayList<>()).add(g));
        }
        Map<ModelRole, ModelPart> parts = new EnumMap<>(ModelRole.class);
        Map<ModelRole, String> conflicts = new EnumMap<>(ModelRole.class);
        for (Map.Entry<GraphKind, List<GraphClassification>> e : byRole.entrySet()) {
            if (e.getValue().size() > 1) {
                conflicts.merge(
                        e.getKey().modelRole(),
                        e.getValue().size() + " graphs claim the " + e.getKey().label() + " role: "
                                + e.getValue().stream()
                                        .map(GraphClassification::describe)
                                        .collect(Collectors.joining("; ")),
                        (a, b) -> a + "; " + b);
            }
        }
        single(byRole, GraphKind.TEXT_ENCODER, conflicts)
                .ifPresent(g -> parts.put(ModelRole.TEXT_ENCODER, discovered(ModelRole.TEXT_ENCODER, List.of(g))));
        single(byRole, GraphKind.DENOISER, conflicts).ifPresent(g -> {
            List<GraphClassification> denoiser = new ArrayList<>(List.of(g));
            single(byRole, GraphKind.FUSED_DENOISER, conflicts).ifPresent(denoiser::add);
            parts.put(ModelRole.DENOISER, discovered(ModelRole.DENOISER, denoiser));
        });
        single(byRole, GraphKind.VAE_DECODER, conflicts)
                .ifPresent(g -> parts.put(
                        ModelRole.VAE_DECODER,
                        new ModelPart(
                                ModelRole.VAE_DECODER,
                                List.of(entry(g)),
                                Optional.of(DecoderLayout.single()),
                                Optional.empty(),
                                Optional.empty(),
                                g.file().toString())));
        single(byRole, GraphKind.VAE_ENCODER, conflicts)
                .ifPresent(g -> parts.put(ModelRole.VAE_ENCODER, discovered(ModelRole.VAE_ENCODER, List.of(g))));
        List<Path> graphFolders =
                graphs.stream().map(g -> g.file().getParent()).distinct().toList();
        TokenizerLocator.find(dir, graphFolders)
                .ifPresent(t -> parts.put(
                        ModelRole.TOKENIZER,
                        new ModelPart(
                                ModelRole.TOKENIZER,
                                List.of(),
                                Optional.empty(),
                                Optional.of(t),
                                Optional.empty(),
                                t.toString())));
        return new FolderParts(dir, Optional.empty(), parts, graphs, conflicts);
    }

    /** A conflicting role yields nothing: which graph to use is for the user to say. */
    private static Optional<GraphClassification> single(
            Map<GraphKind, List<GraphClassification>> byRole, GraphKind role, Map<ModelRole, String> conflicts) {
        List<GraphClassification> found = byRole.getOrDefault(role, List.of());
        return found.size() == 1 ? Optional.of(found.get(0)) : Optional.empty();
    }

    private static ModelPart discovered(ModelRole role, List<GraphClassification> graphs) {
        List<ModelEntry> entries = graphs.stream().map(PartsReader::entry).toList();
        return new ModelPart(
                role,
                entries,
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                graphs.stream().map(g -> g.file().toString()).collect(Collectors.joining(" + ")));
    }

    /**
     * @param g a recognised graph
     * @return its entry under the key its role runs by; names, sizes and settings come from the graph itself
     */
    static ModelEntry entry(GraphClassification g) {
        return new ModelEntry(
                g.role().orElseThrow().key(),
                g.file().toString(),
                Optional.empty(),
                new TensorNames(List.of(), List.of(), Optional.empty(), Optional.empty()),
                Optional.empty(),
                new GraphSettings(
                        Optional.empty(),
                        OptionalInt.empty(),
                        OptionalInt.empty(),
                        OptionalInt.empty(),
                        Optional.empty()));
    }
}
