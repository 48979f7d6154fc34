/**
 * The FLUX.2 [klein] API ({@code dev.flux2.api}) and the backend SPI ({@code dev.flux2.spi}). Backends
 * ({@link dev.flux2.spi.Flux2BackendProvider}) and model resolvers ({@link dev.flux2.spi.ModelResolver}) are found
 * with {@link java.util.ServiceLoader}.
 */
module dev.flux2.core {
    requires transitive java.desktop;
    requires org.slf4j;

    exports dev.flux2.api;
    exports dev.flux2.spi;

    uses dev.flux2.spi.Flux2BackendProvider;
    uses dev.flux2.spi.ModelResolver;
}
