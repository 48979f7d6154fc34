/**
 * The ONNX Runtime backend of flux2-java: {@link dev.flux2.onnx.OnnxBackendProvider} (registered with
 * {@link java.util.ServiceLoader} under the name {@code onnx}) opens a FLUX.2 [klein] ONNX bundle into an
 * {@link dev.flux2.onnx.OnnxBackend}, which delegates every SPI call to one stage class.
 *
 * <p>Layers: {@code config} (flux2-config.json and file checks) → {@code graph} (graph headers and their I/O
 * contract) → {@code session} (sessions, providers, memory policy) → {@code tensor} (direct buffers of any float or
 * integer type) → {@code stage} (text encoder, denoisers, VAE decoder). Every tensor is fed and read in the element type its graph
 * declares; where one graph feeds another of a different type, the stage converts.
 */
package dev.flux2.onnx;
