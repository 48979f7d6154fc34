package dev.flux2.spi;

import dev.flux2.api.MemoryPolicy;
import java.nio.file.Path;
import java.util.Collections;
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
 */
public record BackendConfig(Path modelDirectory, MemoryPolicy memoryPolicy, Map<String, String> options) {

    /** Validates and copies, keeping the options' order. */
    public BackendConfig {
        Objects.requireNonNull(modelDirectory, "modelDirectory");
        Objects.requireNonNull(memoryPolicy, "memoryPolicy");
        Map<String, String> copy = new LinkedHashMap<>();
        options.forEach((key, value) ->
                copy.put(Objects.requireNonNull(key, "option key"), Objects.requireNonNull(value, "option value")));
        options = Collections.unmodifiableMap(copy);
    }
}
