/**
 * Tensors over direct, native-order buffers ({@link dev.flux2.onnx.tensor.TensorBuffer}), fp16 conversion with
 * saturation ({@link dev.flux2.onnx.tensor.Fp16}) and safe reading of runtime-allocated outputs
 * ({@link dev.flux2.onnx.tensor.OutputReader}).
 */
package dev.flux2.onnx.tensor;
