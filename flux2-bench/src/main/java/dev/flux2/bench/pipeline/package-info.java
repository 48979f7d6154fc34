/** Whole generations through the public {@code Flux2Pipeline} API. */
package dev.flux2.bench.pipeline;
