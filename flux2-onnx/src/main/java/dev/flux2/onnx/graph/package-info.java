/**
 * The graph toolkit every graph pass is written on: an index of a graph's producers and uses ({@link
 * dev.flux2.onnx.graph.GraphIndex}), node and attribute builders ({@link dev.flux2.onnx.graph.Nodes}, {@link
 * dev.flux2.onnx.graph.Attributes}), fresh names, pruning, the imported opsets and the one element-type vocabulary
 * ({@link dev.flux2.onnx.graph.ElementTypes}). On ONNX's protobuf classes; depends on nothing else in flux2-onnx.
 */
package dev.flux2.onnx.graph;
