/**
 * The end-to-end profile ({@link dev.flux2.bench.profile.EndToEndProfile}): N generations through the public API
 * with per-stage wall time, the time inside {@code OrtSession.run}, the Java-side overhead, peak RSS, RSS growth
 * over many RESIDENT generations, and the SEQUENTIAL memory bound on a bundle with ≥ 1 GiB of transformer weights.
 */
package dev.flux2.bench.profile;
