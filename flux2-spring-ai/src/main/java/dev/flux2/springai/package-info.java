/**
 * FLUX.2 [klein] as Spring AI's {@code ImageModel}: {@link dev.flux2.springai.Flux2ImageModel} with its
 * {@link dev.flux2.springai.Flux2ImageOptions}; the Spring Boot auto-configuration is in
 * {@code dev.flux2.springai.autoconfigure}.
 */
package dev.flux2.springai;
