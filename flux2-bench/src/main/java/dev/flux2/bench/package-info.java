/**
 * JMH benchmarks of every FLUX.2 session stage, the core math, the tokenizer, and an end-to-end profile
 * ({@link dev.flux2.bench.profile.EndToEndProfile}). Every benchmark runs on a synthetic bundle by default and on a
 * real bundle with {@code -Dflux2.model=DIR}. Run with {@code java -jar flux2-bench/target/benchmarks.jar}.
 */
package dev.flux2.bench;
