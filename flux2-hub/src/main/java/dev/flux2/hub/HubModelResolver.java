package dev.flux2.hub;

import dev.flux2.api.HubOptions;
import dev.flux2.spi.ModelResolver;
import java.nio.file.Path;

/**
 * The {@link ModelResolver} for Hugging Face repo ids ({@code owner/name} or {@code owner/name@revision}),
 * registered with {@link java.util.ServiceLoader}: {@code Flux2Pipeline.builder().model("owner/name@rev")} and
 * {@code Flux2Models.resolve} use it through {@link ModelHub}.
 */
public final class HubModelResolver implements ModelResolver {
    /** Creates the resolver (cheap: nothing is read until {@link #resolve}). */
    public HubModelResolver() {}

    @Override
    public String name() {
        return "huggingface";
    }

    @Override
    public boolean accepts(String reference) {
        return RepoRef.isValid(reference);
    }

    @Override
    public Path resolve(String reference, HubOptions options) {
        return ModelHub.builder()
                .options(options)
                .build()
                .resolve(RepoRef.parse(reference))
                .directory();
    }
}
