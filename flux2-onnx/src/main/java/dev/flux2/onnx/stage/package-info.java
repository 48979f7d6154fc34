/**
 * One class per pipeline stage on ONNX Runtime: {@link dev.flux2.onnx.stage.TextEncoderStage},
 * {@link dev.flux2.onnx.stage.OnnxDenoiserSession} (per-step and fused transformer),
 * {@link dev.flux2.onnx.stage.VaeDecoderChain} (one unified graph, or pre-attention, chunked or whole attention and
 * the post graphs) and {@link dev.flux2.onnx.stage.VaeEncoderStage}.
 */
package dev.flux2.onnx.stage;
