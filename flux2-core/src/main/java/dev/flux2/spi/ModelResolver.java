package dev.flux2.spi;

import java.nio.file.Path;

/**
 * Turns a model reference that names no existing folder (for example a Hugging Face repository id
 * {@code owner/name@revision}) into a local model folder, fetching what is missing. Registered in
 * {@code META-INF/services/dev.flux2.spi.ModelResolver} (and {@code provides} in a module descriptor);
 * {@code flux2-hub} implements it. Registered implementations must have a public no-argument constructor (which
 * takes its settings from the environment) and be cheap to construct; an instance configured otherwise can be
 * given to {@code Flux2Pipeline.Builder.modelResolver}. Core knows no resolver: it only calls this interface.
 */
public interface ModelResolver {

    /** @return a short unique name, for example {@code huggingface} */
    String name();

    /**
     * A syntax check only: no file or network access.
     *
     * @param reference the model reference as the user wrote it
     * @return whether {@link #resolve} should be tried
     */
    boolean accepts(String reference);

    /**
     * Finds the model locally or fetches it, verifies it, and returns its folder.
     *
     * @param reference the model reference
     * @return a complete, verified model folder
     * @throws dev.flux2.api.ModelLoadException naming the file, the expected and the actual value, or what is
     *     missing
     */
    Path resolve(String reference);
}
