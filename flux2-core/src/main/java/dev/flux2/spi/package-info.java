/**
 * The backend SPI: what a runtime (ONNX Runtime in {@code flux2-onnx}) implements so that the backend-neutral
 * pipeline can drive it. Backends are found with {@link java.util.ServiceLoader} through
 * {@link dev.flux2.spi.Flux2BackendProvider}.
 *
 * <p>Data crossing the SPI is host-side fp32 ({@code float[]}) in the layouts of {@code dev.flux2.math}; backends
 * convert to their graph dtypes at the session boundary. Text embeddings are backend-owned handles so that a
 * backend can keep them in native memory across denoising steps.
 */
package dev.flux2.spi;
