/**
 * CPU-tuned graphs: a variant of the text encoder and the transformer derived once per source graph, with
 * {@code MatMulNBits} at {@code accuracy_level} 0 and fp32 activations, stored beside the bundle (or in a cache
 * folder) and referencing the original weight shards. Measured in docs/performance.md, "CPU-tuned graphs".
 */
package dev.flux2.onnx.tuning;
