/**
 * The public API of flux2-java: {@link dev.flux2.Flux2Pipeline}, {@link dev.flux2.api.GenerationRequest}, the
 * results, progress and cancellation types, and the {@link dev.flux2.api.Flux2Exception} hierarchy.
 */
package dev.flux2.api;
