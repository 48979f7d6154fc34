/** Microbenchmarks of the backend-neutral math: latent pack/unpack, fp16 conversion, seeded noise. */
package dev.flux2.bench.math;
