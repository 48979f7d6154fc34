package dev.flux2.springai.autoconfigure;

import dev.flux2.Flux2Pipeline;
import dev.flux2.api.GenerationLimits;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.hub.HubModelResolver;
import dev.flux2.hub.HubOptions;
import dev.flux2.onnx.options.OnnxOptions;
import dev.flux2.springai.Flux2ImageModel;
import dev.flux2.springai.Flux2ImageOptions;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.ai.image.observation.ImageModelObservationConvention;
import org.springframework.ai.model.SpringAIModelProperties;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configures FLUX.2 as the Spring AI image model when {@code spring.ai.model.image=flux2} (Spring AI's selection
 * property; unlike OpenAI's, not the default when missing: opening a model is heavy). One {@link Flux2Pipeline} bean,
 * opened once from {@code spring.ai.flux2.image.*}, shared, and closed with the context; one {@link Flux2ImageModel}
 * bean on it, observed through the context's {@link ObservationRegistry}. Each bean backs off when the application
 * defines its own.
 */
@AutoConfiguration
@ConditionalOnClass({Flux2ImageModel.class, Flux2Pipeline.class})
@ConditionalOnProperty(name = SpringAIModelProperties.IMAGE_MODEL, havingValue = Flux2ImageModel.PROVIDER)
@EnableConfigurationProperties(Flux2ImageProperties.class)
public class Flux2ImageAutoConfiguration {
    /** Creates the auto-configuration (Spring calls it). */
    public Flux2ImageAutoConfiguration() {}

    /**
     * @param properties the settings
     * @return the pipeline, its model opened and checked; closed with the context
     * @throws InvalidRequestException when {@code spring.ai.flux2.image.model} is not set
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public Flux2Pipeline flux2Pipeline(Flux2ImageProperties properties) {
        if (properties.getModel() == null || properties.getModel().isBlank()) {
            throw new InvalidRequestException(Flux2ImageProperties.CONFIG_PREFIX
                    + ".model must name a bundle folder or a repo id (owner/name), got none");
        }
        Flux2Pipeline.Builder b = Flux2Pipeline.builder().model(properties.getModel());
        HubOptions.Builder hub = HubOptions.builder();
        if (properties.getHub().getCacheDir() != null) {
            hub.cacheDir(properties.getHub().getCacheDir());
        }
        if (properties.getHub().getOffline() != null) {
            hub.offline(properties.getHub().getOffline());
        }
        b.modelResolver(new HubModelResolver(hub.build()));
        if (properties.getMemoryPolicy() != null) {
            b.memoryPolicy(properties.getMemoryPolicy());
        }
        b.limits(limits(properties.getLimits()));
        properties.getBackendOptions().forEach(b::backendOption);
        if (properties.getProvider() != null) {
            b.backendOption(OnnxOptions.PROVIDERS, properties.getProvider());
        }
        return b.build();
    }

    /**
     * @param pipeline the pipeline
     * @param properties the settings
     * @param observationRegistry the observation registry, if the context has one
     * @param observationConvention a custom observation convention, if the context has one
     * @return the image model
     */
    @Bean
    @ConditionalOnMissingBean
    public Flux2ImageModel flux2ImageModel(
            Flux2Pipeline pipeline,
            Flux2ImageProperties properties,
            ObjectProvider<ObservationRegistry> observationRegistry,
            ObjectProvider<ImageModelObservationConvention> observationConvention) {
        Flux2ImageProperties.Options o = properties.getOptions();
        Flux2ImageModel model = Flux2ImageModel.builder()
                .pipeline(pipeline)
                .defaultOptions(Flux2ImageOptions.builder()
                        .model(properties.getModel())
                        .n(o.getN())
                        .width(o.getWidth())
                        .height(o.getHeight())
                        .steps(o.getSteps())
                        .seed(o.getSeed())
                        .guidance(o.getGuidance())
                        .build())
                .observationRegistry(observationRegistry.getIfUnique(() -> ObservationRegistry.NOOP))
                .allowRemoteImages(properties.isAllowRemoteImages())
                .localImageFolders(properties.getLocalImageFolders())
                .build();
        observationConvention.ifAvailable(model::setObservationConvention);
        return model;
    }

    private static GenerationLimits limits(Flux2ImageProperties.Limits l) {
        GenerationLimits.Builder b = GenerationLimits.builder();
        if (l.getMaxPixels() != null) {
            b.maxPixels(l.getMaxPixels());
        }
        if (l.getMaxSide() != null) {
            b.maxSide(l.getMaxSide());
        }
        if (l.getMaxSteps() != null) {
            b.maxSteps(l.getMaxSteps());
        }
        if (l.getMaxImages() != null) {
            b.maxImages(l.getMaxImages());
        }
        if (l.getMaxReferences() != null) {
            b.maxReferences(l.getMaxReferences());
        }
        if (l.getMaxInputPixels() != null) {
            b.maxInputPixels(l.getMaxInputPixels());
        }
        if (l.getMaxInputSide() != null) {
            b.maxInputSide(l.getMaxInputSide());
        }
        return b.build();
    }
}
