/** Shared setup of the benchmarks: where the bundle and the fixtures come from, temp-dir clean-up. */
package dev.flux2.bench.support;
