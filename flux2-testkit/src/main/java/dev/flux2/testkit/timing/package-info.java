/**
 * The realistic-width timing bundle: a FLUX.2 [klein] transformer graph at the real width (hidden 3072, 24 heads
 * of 128, MLP ratio 3, context 7680, MatMulNBits 4-bit block 16, fp16 activations with fp32 attention scores)
 * but with only a few blocks, so the cost of one double-stream and one single-stream block can be measured on a
 * small machine and scaled to the real 5 + 20 blocks. The weights are random: the graph computes nothing
 * meaningful, only the same work per token as the real one. It keeps the real transformer I/O contract, so the
 * ONNX backend runs it like the real graph; {@link dev.flux2.testkit.timing.TimingBundleWriter} puts it into an
 * otherwise synthetic bundle.
 */
package dev.flux2.testkit.timing;
