/**
 * Tensors over direct, native-order buffers ({@link dev.flux2.onnx.tensor.TensorBuffer}) that a backend reuses
 * across generations ({@link dev.flux2.onnx.tensor.DirectBufferPool}), fp16 conversion with saturation
 * ({@link dev.flux2.onnx.tensor.Fp16}) and safe reading of runtime-allocated outputs
 * ({@link dev.flux2.onnx.tensor.OutputReader}).
 */
package dev.flux2.onnx.tensor;
