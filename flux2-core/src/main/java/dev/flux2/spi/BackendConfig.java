package dev.flux2.spi;

import dev.flux2.api.MemoryPolicy;
import dev.flux2.api.ModelRole;
import java.nio.file.Path;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Everything a backend needs to open a model, as chosen on {@code Flux2Pipeline.builder()}: the backend-neutral
 * settings and the backend's own options as strings, which the backend parses and validates when it opens the
 * model (an unknown key or a bad value is an {@link dev.flux2.api.InvalidRequestException} naming the key, the value
 * and what is accepted).
 *
 * @param modelDirectory the model folder
 * @param memoryPolicy when sessions stay open
 * @param options backend-specific options in the order they were set (keys and values non-null)
 * @param components parts taken from elsewhere instead of the model folder: each role's source is a folder (the
 *     part is found there as in a model folder) or a file (a graph, or for the tokenizer its {@code tokenizer.json});
 *     empty when the whole model comes from the folder
 */
public record BackendConfig(
        Path modelDirectory, MemoryPolicy memoryPolicy, Map<String, String> options, Map<ModelRole, Path> components) {

    /** Validates and copies, keeping the options' order. */
    public BackendConfig {
        Objects.requireNonNull(modelDirectory, "modelDirectory");
        Objects.requireNonNull(memoryPolicy, "memoryPolicy");
        Map<String, String> copy = new LinkedHashMap<>();
        options.forEach((key, value) ->
                copy.put(Objects.requireNonNull(key, "option key"), Objects.requireNonNull(value, "option value")));
        options = Collections.unmodifiableMap(copy);
        Map<ModelRole, Path> parts = new EnumMap<>(ModelRole.class);
        components.forEach((role, source) ->
                parts.put(Objects.requireNonNull(role, "role"), Objects.requireNonNull(source, "component source")));
        components = Collections.unmodifiableMap(parts);
    }

    /**
     * A model taken whole from its folder.
     *
     * @param modelDirectory the model folder
     * @param memoryPolicy when sessions stay open
     * @param options backend-specific options in the order they were set
     */
    public BackendConfig(Path modelDirectory, MemoryPolicy memoryPolicy, Map<String, String> options) {
        this(modelDirectory, memoryPolicy, options, Map.of());
    }
}
