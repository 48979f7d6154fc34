/**
 * The backend SPI: what a runtime (ONNX Runtime in {@code flux2-onnx}) implements so that the backend-neutral
 * pipeline can drive it. Backends are found with {@link java.util.ServiceLoader} through
 * {@link dev.flux2.spi.Flux2BackendProvider} and opened with a {@link dev.flux2.spi.BackendConfig} (model folder,
 * memory policy and the backend's own string options).
 *
 * <p>Data crossing the SPI is host-side fp32 ({@code float[]}): latents as {@link dev.flux2.spi.LatentGrid}
 * ({@value dev.flux2.spi.LatentGrid#CHANNELS} channels on the W/16 × H/16 token grid) or packed token rows of that
 * many features, pixels as {@link dev.flux2.spi.PixelTensor}; backends convert to their graph dtypes at the session
 * boundary. Text embeddings are backend-owned handles so that a backend can keep them in native memory across
 * denoising steps.
 */
package dev.flux2.spi;
