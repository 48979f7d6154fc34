/**
 * Benchmarks of each session stage through the ONNX backend's own stage classes: text encoder, transformer step,
 * fused 4-step denoise, VAE decoder parts (pre-attention, one attention chunk, whole attention, each post stage),
 * the whole VAE decoder chain, and the VAE encoder. Sessions are RESIDENT and opened in the trial setup, so each
 * measurement is the run (inputs, {@code OrtSession.run}, outputs), not session creation.
 */
package dev.flux2.bench.stages;
