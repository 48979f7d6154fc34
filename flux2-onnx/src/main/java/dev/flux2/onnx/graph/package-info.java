/**
 * Graph signatures read from the {@code .onnx} headers without loading weights
 * ({@link dev.flux2.onnx.graph.OnnxHeaderReader}, including the external-data files each graph reads, checked by
 * {@link dev.flux2.onnx.graph.ExternalDataCheck}), and the I/O contract of each graph family they are checked
 * against ({@link dev.flux2.onnx.graph.GraphContracts}). The graphs are authoritative: element types are the ones
 * each graph declares ({@link dev.flux2.onnx.graph.TypeSets} lists what is accepted), and tensor names are
 * resolved from the graphs by the names known exports use, with the config's lists as hints.
 */
package dev.flux2.onnx.graph;
