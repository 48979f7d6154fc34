package dev.flux2.cli;

import dev.flux2.api.InvalidRequestException;
import dev.flux2.api.ModelRole;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * {@code --component ROLE=PATH}, shared by the commands that open a model: takes one part of the model (tokenizer,
 * text-encoder, denoiser, vae-decoder, vae-encoder) from another folder or file instead of the model folder, for
 * example a transformer of another export beside a bundle's text encoder and VAE.
 */
final class ComponentOption {
    @Option(
            names = "--component",
            paramLabel = "ROLE=PATH",
            mapFallbackValue = "",
            description = "Take one part of the model from another folder or file (repeatable). ROLE is tokenizer,"
                    + " text-encoder, denoiser, vae-decoder or vae-encoder; PATH a folder (the part is found there by"
                    + " its graph's signature, or by its flux2-config.json) or a graph file (tokenizer:"
                    + " tokenizer.json).")
    Map<String, String> components = new LinkedHashMap<>();

    /**
     * @return each role's source
     * @throws InvalidRequestException for an unknown role, a role given twice or an empty path
     */
    Map<ModelRole, Path> resolve() {
        Map<ModelRole, Path> parts = new EnumMap<>(ModelRole.class);
        for (Map.Entry<String, String> e : components.entrySet()) {
            ModelRole role = ModelRole.parse(e.getKey());
            if (e.getValue().isBlank()) {
                throw new InvalidRequestException(
                        "--component " + e.getKey() + " needs a path: --component " + role.label() + "=PATH");
            }
            if (parts.put(role, Path.of(e.getValue())) != null) {
                throw new InvalidRequestException("--component " + role.label() + " is given twice");
            }
        }
        return parts;
    }
}
