package dev.flux2.springai.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.flux2.Flux2Pipeline;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.MemoryPolicy;
import dev.flux2.api.PipelineClosedException;
import dev.flux2.springai.Flux2ImageModel;
import dev.flux2.springai.Flux2ImageOptions;
import dev.flux2.springai.TestModels;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.ai.image.ImageModel;
import org.springframework.ai.image.ImagePrompt;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The auto-configuration's selection, property binding, back-off and close, on the synthetic bundle. */
class Flux2ImageAutoConfigurationTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(Flux2ImageAutoConfiguration.class))
            .withPropertyValues(
                    "spring.ai.flux2.image.model=" + TestModels.bundle().directory());

    @Test
    void notSelectedWithoutSpringAiModelImageFlux2() {
        runner.run(ctx -> assertThat(ctx).doesNotHaveBean(Flux2Pipeline.class).doesNotHaveBean(ImageModel.class));
        runner.withPropertyValues("spring.ai.model.image=openai")
                .run(ctx -> assertThat(ctx).doesNotHaveBean(Flux2Pipeline.class));
    }

    @Test
    void selectedBySpringAiModelImageFlux2PropertiesBindToThePipelineAndTheDefaultOptions() {
        runner.withPropertyValues(
                        "spring.ai.model.image=flux2",
                        "spring.ai.flux2.image.options.width=32",
                        "spring.ai.flux2.image.options.height=48",
                        "spring.ai.flux2.image.options.steps=2",
                        "spring.ai.flux2.image.options.seed=42",
                        "spring.ai.flux2.image.options.guidance=2.5",
                        "spring.ai.flux2.image.options.n=2",
                        "spring.ai.flux2.image.memory-policy=sequential",
                        "spring.ai.flux2.image.provider=cpu",
                        "spring.ai.flux2.image.backend-options.threads=1",
                        "spring.ai.flux2.image.hub.cache-dir=/tmp/flux2-hub-cache",
                        "spring.ai.flux2.image.hub.offline=true",
                        "spring.ai.flux2.image.allow-remote-images=true",
                        "spring.ai.flux2.image.local-image-folders=/srv/images,/tmp/uploads",
                        "spring.ai.flux2.image.limits.max-images=3",
                        "spring.ai.flux2.image.limits.max-steps=50",
                        "spring.ai.flux2.image.limits.max-references=2")
                .run(ctx -> {
                    assertThat(ctx)
                            .hasSingleBean(Flux2Pipeline.class)
                            .hasSingleBean(ImageModel.class)
                            .getBean(ImageModel.class)
                            .isInstanceOf(Flux2ImageModel.class);
                    Flux2ImageProperties p = ctx.getBean(Flux2ImageProperties.class);
                    assertEquals(MemoryPolicy.SEQUENTIAL, p.getMemoryPolicy());
                    assertEquals("cpu", p.getProvider());
                    assertEquals(Map.of("threads", "1"), p.getBackendOptions());
                    assertEquals(Path.of("/tmp/flux2-hub-cache"), p.getHub().getCacheDir());
                    assertEquals(Boolean.TRUE, p.getHub().getOffline());
                    assertEquals(true, p.isAllowRemoteImages());
                    assertEquals(List.of(Path.of("/srv/images"), Path.of("/tmp/uploads")), p.getLocalImageFolders());
                    Flux2Pipeline pipeline = ctx.getBean(Flux2Pipeline.class);
                    assertEquals(3, pipeline.limits().maxImages());
                    assertEquals(50, pipeline.limits().maxSteps());
                    assertEquals(2, pipeline.limits().maxReferences());
                    assertEquals(
                            Flux2ImageOptions.builder()
                                    .model(TestModels.bundle().directory().toString())
                                    .width(32)
                                    .height(48)
                                    .steps(2)
                                    .seed(42L)
                                    .guidance(2.5)
                                    .n(2)
                                    .build(),
                            ctx.getBean(Flux2ImageModel.class).getDefaultOptions());
                });
    }

    @Test
    void backsOffWhenTheApplicationDefinesItsOwnBeans() {
        Flux2Pipeline own =
                Flux2Pipeline.builder().model(TestModels.bundle().directory()).build();
        runner.withPropertyValues("spring.ai.model.image=flux2")
                .withBean(Flux2Pipeline.class, () -> own)
                .run(ctx -> {
                    assertSame(own, ctx.getBean(Flux2Pipeline.class));
                    assertThat(ctx).hasSingleBean(Flux2ImageModel.class);
                });
        Flux2ImageModel ownModel =
                Flux2ImageModel.builder().pipeline(TestModels.direct()).build();
        runner.withPropertyValues("spring.ai.model.image=flux2")
                .withBean(Flux2ImageModel.class, () -> ownModel)
                .run(ctx -> assertSame(ownModel, ctx.getBean(ImageModel.class)));
    }

    @Test
    void observesOnTheContextsRegistryAndClosingTheContextClosesThePipeline() {
        AtomicReference<Flux2Pipeline> pipeline = new AtomicReference<>();
        TestObservationRegistry registry = TestObservationRegistry.create();
        runner.withPropertyValues("spring.ai.model.image=flux2", "spring.ai.flux2.image.options.steps=1")
                .withBean(ObservationRegistry.class, () -> registry)
                .run(ctx -> {
                    pipeline.set(ctx.getBean(Flux2Pipeline.class));
                    ctx.getBean(ImageModel.class).call(new ImagePrompt("x"));
                    TestObservationRegistryAssert.assertThat(registry)
                            .hasObservationWithNameEqualTo("gen_ai.client.operation")
                            .that()
                            .hasLowCardinalityKeyValue("gen_ai.system", "flux2");
                });
        assertThrows(
                PipelineClosedException.class,
                () -> pipeline.get()
                        .generate(GenerationRequest.builder("x").steps(1).build()));
    }

    @Test
    void aMissingModelFailsTheStartupNamingTheProperty() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(Flux2ImageAutoConfiguration.class))
                .withPropertyValues("spring.ai.model.image=flux2")
                .run(ctx -> assertThat(ctx)
                        .hasFailed()
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("spring.ai.flux2.image.model must name a bundle folder"));
    }
}
