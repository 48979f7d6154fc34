/**
 * The Spring Boot auto-configuration of FLUX.2 as Spring AI's image model
 * ({@link dev.flux2.springai.autoconfigure.Flux2ImageAutoConfiguration}, selected by {@code spring.ai.model.image=flux2})
 * and its properties ({@link dev.flux2.springai.autoconfigure.Flux2ImageProperties}, {@code spring.ai.flux2.image.*}).
 */
package dev.flux2.springai.autoconfigure;
