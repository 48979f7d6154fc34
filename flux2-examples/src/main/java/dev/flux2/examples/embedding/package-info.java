/**
 * Small programs that embed flux2-java, each a {@code main} of a few lines: the minimal text-to-image program the
 * README shows ({@link dev.flux2.examples.embedding.MinimalExample}), image-to-image
 * ({@link dev.flux2.examples.embedding.ImageToImageExample}), reference images
 * ({@link dev.flux2.examples.embedding.ReferencesExample}) and the HTTP service inside an application
 * ({@link dev.flux2.examples.embedding.ServerExample}). The test command runs every one on a synthetic bundle.
 */
package dev.flux2.examples.embedding;
