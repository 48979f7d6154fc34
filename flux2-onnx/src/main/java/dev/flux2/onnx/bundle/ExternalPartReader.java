package dev.flux2.onnx.bundle;

import dev.flux2.api.ModelLoadException;
import dev.flux2.api.ModelRole;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Reads one part taken from elsewhere ({@link dev.flux2.spi.BackendConfig#components()}): from a folder, the part as
 * the folder provides it; from a file, the graph it holds, whose signature must be that part's, or for the tokenizer
 * its {@code tokenizer.json}. Stateless.
 */
final class ExternalPartReader {
    private ExternalPartReader() {}

    /**
     * @param role the part
     * @param source a folder or a file
     * @return the part
     * @throws ModelLoadException naming the role, the source and what it holds instead
     */
    static ModelPart read(ModelRole role, Path source) {
        Path src = source.toAbsolutePath().normalize();
        String what = "component " + role.label() + " (" + src + ")";
        if (!Files.exists(src)) {
            throw new ModelLoadException(what + " does not exist");
        }
        if (role == ModelRole.TOKENIZER) {
            return tokenizer(src, what);
        }
        if (Files.isDirectory(src)) {
            FolderParts parts = PartsReader.read(src, true);
            Optional<ModelPart> part = parts.part(role);
            if (part.isPresent()) {
                ModelPart p = part.get();
                return new ModelPart(role, p.entries(), p.decoder(), p.tokenizer(), p.config(), src.toString());
            }
            String conflict = parts.conflicts().get(role);
            throw new ModelLoadException(what + ": "
                    + (conflict != null
                            ? conflict + "; give the graph file instead of the folder"
                            : "no graph in the folder has a " + role.label() + "'s signature; graphs found: "
                                    + (parts.graphs().isEmpty()
                                            ? "none"
                                            : parts.graphs().stream()
                                                    .map(GraphClassification::describe)
                                                    .collect(Collectors.joining("; ")))));
        }
        GraphClassification g = FolderScan.classify(src);
        if (g.role().isEmpty()) {
            throw new ModelLoadException(what + " matches no known signature: " + g.describe());
        }
        GraphKind found = g.role().get();
        if (found.modelRole() != role) {
            throw new ModelLoadException(
                    what + " is a " + found.label() + " graph, not a " + role.label() + ": " + g.describe());
        }
        if (found == GraphKind.FUSED_DENOISER) {
            throw new ModelLoadException(what + " is a fused multi-step denoiser; the per-step denoiser is required"
                    + " (give the per-step graph, or the folder holding both): " + g.describe());
        }
        return new ModelPart(
                role,
                List.of(PartsReader.entry(g)),
                role == ModelRole.VAE_DECODER ? Optional.of(DecoderLayout.single()) : Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                src.toString());
    }

    private static ModelPart tokenizer(Path src, String what) {
        Optional<Path> folder;
        if (Files.isDirectory(src)) {
            folder = TokenizerLocator.find(src, List.of());
        } else if (src.getFileName().toString().equals(TokenizerLocator.TOKENIZER_JSON)) {
            folder = Optional.of(src.getParent());
        } else {
            throw new ModelLoadException(what + " is neither a folder nor a " + TokenizerLocator.TOKENIZER_JSON);
        }
        Path dir = folder.orElseThrow(() -> new ModelLoadException(
                what + ": neither the folder nor its tokenizer/ subfolder holds " + TokenizerLocator.TOKENIZER_JSON));
        return new ModelPart(
                ModelRole.TOKENIZER, List.of(), Optional.empty(), Optional.of(dir), Optional.empty(), src.toString());
    }
}
