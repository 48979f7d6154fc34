/**
 * The backend-neutral FLUX.2 [klein] SDK, in layers: the facade {@code dev.flux2} ({@code Flux2Pipeline} and its
 * builder, {@code Flux2Models}, {@code ImageFiles}) on top; the generation engine ({@code dev.flux2.pipeline},
 * internal) below it; the image conversions and the schedule and latent math ({@code dev.flux2.image},
 * {@code dev.flux2.math}, internal; the math exported to the benchmarks only) below the engine; the backend SPI
 * ({@code dev.flux2.spi}); and at the bottom the API's plain values and exceptions ({@code dev.flux2.api}), which
 * import nothing above them. Backends ({@link dev.flux2.spi.Flux2BackendProvider}) and model resolvers
 * ({@link dev.flux2.spi.ModelResolver}) are found with {@link java.util.ServiceLoader}: put {@code dev.flux2.onnx}
 * and {@code dev.flux2.hub} (which flux2-onnx's POM brings, for models by name) on the module path, or
 * {@code flux2-onnx} on the class path.
 */
// dev.flux2.bench, an application jar (automatic module), is absent when this compiles; "flux2" ends in a digit.
@SuppressWarnings("module")
module dev.flux2.core {
    requires transitive java.desktop; // BufferedImage in the API
    requires org.slf4j;
    requires jdk.management; // physical memory, for the default GenerationLimits
    requires java.net.http; // dev.flux2.io.EncodedImages.fetch, for the adapters' remote images

    exports dev.flux2;
    exports dev.flux2.io;
    exports dev.flux2.api;
    exports dev.flux2.spi;
    exports dev.flux2.math to
            dev.flux2.bench;

    uses dev.flux2.spi.Flux2BackendProvider;
    uses dev.flux2.spi.ModelResolver;
}
