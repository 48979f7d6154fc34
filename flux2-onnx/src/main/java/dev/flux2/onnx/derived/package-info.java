/**
 * Derived graphs: a bundle's graph rewritten once by graph passes ({@code dev.flux2.onnx.passes}) and stored beside
 * the bundle (or in a cache folder), referencing the original weight shards. {@link
 * dev.flux2.onnx.derived.DerivationPlan} decides which graph gets which passes for given options and providers;
 * {@link dev.flux2.onnx.derived.DerivedGraphStore} derives and finds them under the ids and versions of those passes.
 */
package dev.flux2.onnx.derived;
