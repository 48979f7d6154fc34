/**
 * Graph signatures read from the {@code .onnx} headers without loading weights
 * ({@link dev.flux2.onnx.graph.OnnxHeaderReader}), and the per-graph I/O contract they are checked against
 * ({@link dev.flux2.onnx.graph.GraphContracts}), which resolves the tensor names every stage feeds and reads.
 */
package dev.flux2.onnx.graph;
