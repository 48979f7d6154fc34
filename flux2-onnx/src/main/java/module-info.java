/**
 * The ONNX Runtime backend of flux2-java. Applications use the API of {@code dev.flux2.core} and reach this backend
 * through {@link java.util.ServiceLoader} ({@code Flux2Pipeline.builder()}, backend name {@code onnx}, options by
 * {@code backendOption(key, value)}). Two packages are exported: {@code dev.flux2.onnx.options}, the typed options
 * ({@code OnnxOptions}, whose {@code asBackendOptions()} those are), and {@code dev.flux2.onnx.runtime}, which
 * installs and chooses the ONNX Runtime native library (the WebGPU runtime). Some internals are exported to the
 * benchmarks only, which open sessions through the backend's own {@code BackendAssembly}, time its stages one by one
 * and apply graph passes one at a time.
 */
// "module": dev.flux2.bench, an application jar (automatic module), is absent when this compiles, and "flux2" ends
// in a digit; "requires-automatic": ONNX Runtime, JNA, Tribuo's ONNX protobuf classes and protobuf are automatic
// modules.
@SuppressWarnings({"module", "requires-automatic"})
module dev.flux2.onnx {
    requires dev.flux2.core;
    requires dev.flux2.hub; // ModelNames: the export named where a VAE encoder is missing
    requires dev.flux2.tokenizer;
    requires com.fasterxml.jackson.databind;
    requires com.microsoft.onnxruntime;
    requires com.sun.jna;
    requires jdk.management;
    requires jdk.unsupported;
    requires org.tribuo.util.onnx;
    requires com.google.protobuf;
    requires org.slf4j;

    provides dev.flux2.spi.Flux2BackendProvider with
            dev.flux2.onnx.OnnxBackendProvider;

    exports dev.flux2.onnx.options;
    exports dev.flux2.onnx.runtime;
    exports dev.flux2.onnx to
            dev.flux2.bench;
    exports dev.flux2.onnx.bundle to
            dev.flux2.bench;
    exports dev.flux2.onnx.session to
            dev.flux2.bench;
    exports dev.flux2.onnx.stage to
            dev.flux2.bench;
    exports dev.flux2.onnx.tensor to
            dev.flux2.bench;
    exports dev.flux2.onnx.passes to
            dev.flux2.bench;
}
