/**
 * The ONNX backend's options, typed: {@link dev.flux2.onnx.options.OnnxOptions} (an immutable builder, validated in
 * {@code build()}) and the values its options take. The backend receives them as the string map of
 * {@code Flux2Pipeline.Builder.backendOption(key, value)}; {@link dev.flux2.onnx.options.OnnxOptions#parse} is the
 * one place where those strings are read, and {@link dev.flux2.onnx.options.OnnxOptions#asBackendOptions()} the one
 * place where typed options become strings (the CLI, the server's command, the Spark job and the adapters go through
 * them). This package imports nothing else of flux2-onnx: every other package may use it.
 */
package dev.flux2.onnx.options;
