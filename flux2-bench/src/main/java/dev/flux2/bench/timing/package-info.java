/**
 * The realistic-width transformer step on the timing bundle and the extrapolation of its per-block cost to the
 * real 5 + 20 blocks ({@link dev.flux2.bench.timing.StepExtrapolation}).
 */
package dev.flux2.bench.timing;
