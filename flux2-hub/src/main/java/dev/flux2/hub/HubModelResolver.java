package dev.flux2.hub;

import dev.flux2.spi.ModelResolver;
import java.nio.file.Path;
import java.util.Objects;

/**
 * The {@link ModelResolver} for Hugging Face repo ids ({@code owner/name} or {@code owner/name@revision}),
 * through {@link ModelHub}. Registered with {@link java.util.ServiceLoader} (no-argument constructor: every option
 * from the environment), so that {@code Flux2Pipeline.builder().model("owner/name@rev")} and
 * {@code Flux2Models.resolve} find it; with other {@link HubOptions} (cache folder, offline, token, endpoint,
 * download listener) give one to the pipeline:
 *
 * <pre>{@code
 * Flux2Pipeline.builder().model(ModelNames.DEFAULT_MODEL).modelResolver(new HubModelResolver(options)).build();
 * }</pre>
 */
public final class HubModelResolver implements ModelResolver {
    private final HubOptions options;

    /** Creates the resolver with {@link HubOptions#defaults()} (cheap: nothing is read until {@link #resolve}). */
    public HubModelResolver() {
        this(HubOptions.defaults());
    }

    /** @param options cache folder, offline mode, token, endpoint and download listener */
    public HubModelResolver(HubOptions options) {
        this.options = Objects.requireNonNull(options, "options");
    }

    @Override
    public String name() {
        return "huggingface";
    }

    @Override
    public boolean accepts(String reference) {
        return RepoRef.isValid(reference);
    }

    @Override
    public Path resolve(String reference) {
        return ModelHub.builder()
                .options(options)
                .build()
                .resolve(RepoRef.parse(reference))
                .directory();
    }
}
