/**
 * How much memory the process may use and how much the bundle's sessions need: the inputs of
 * {@link dev.flux2.api.MemoryPolicy#AUTO} ({@link dev.flux2.onnx.memory.AutoMemoryPolicy}). The formula and the
 * measurements behind its factors are in docs/performance.md, "The AUTO memory policy".
 */
package dev.flux2.onnx.memory;
