/**
 * The backend-neutral generation pipeline: request resolution, noise, text and image conditioning, the denoising
 * loop over the flow-match schedule, decoding, progress, timing and cancellation. Internal: applications use
 * {@link dev.flux2.Flux2Pipeline}; backends implement {@link dev.flux2.spi}.
 */
package dev.flux2.pipeline;
