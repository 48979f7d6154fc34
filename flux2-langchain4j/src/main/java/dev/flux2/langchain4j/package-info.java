/**
 * FLUX.2 [klein] as LangChain4j's {@code ImageModel}: {@link dev.flux2.langchain4j.Flux2ImageModel}. LangChain4j has
 * no builder-factory SPI for image models (its {@code dev.langchain4j.spi.model} covers embedding models only), so the
 * model is built with {@link dev.flux2.langchain4j.Flux2ImageModel#builder()}.
 */
package dev.flux2.langchain4j;
