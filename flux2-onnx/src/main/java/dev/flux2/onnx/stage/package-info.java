/**
 * One class per pipeline stage on ONNX Runtime: {@link dev.flux2.onnx.stage.TextEncoderStage},
 * {@link dev.flux2.onnx.stage.OnnxDenoiserSession} (per-step and fused transformer),
 * {@link dev.flux2.onnx.stage.VaeDecoderChain} (pre-attention, chunked or whole attention, post stages) and
 * {@link dev.flux2.onnx.stage.VaeEncoderStage}.
 */
package dev.flux2.onnx.stage;
