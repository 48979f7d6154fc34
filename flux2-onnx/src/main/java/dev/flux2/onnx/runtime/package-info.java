/**
 * The ONNX Runtime native library this process runs on: the WebGPU-capable build of the same version as the Java
 * binding, installed and verified by {@link dev.flux2.onnx.runtime.WebGpuRuntime} into
 * {@code $FLUX2_HOME/runtime/<ort-version>/<os-arch>/}, and the one-per-JVM choice of the library that ONNX Runtime
 * loads ({@link dev.flux2.onnx.runtime.OrtNativeLibrary}). Failures are {@link
 * dev.flux2.onnx.runtime.RuntimeLibraryException}s. docs/gpu.md.
 */
package dev.flux2.onnx.runtime;
