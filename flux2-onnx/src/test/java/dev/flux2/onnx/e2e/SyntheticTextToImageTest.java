package dev.flux2.onnx.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.Flux2Pipeline;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.api.ModelInfo;
import dev.flux2.math.FlowMatchSchedule;
import dev.flux2.math.PositionIds;
import dev.flux2.testkit.FusedConvention;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import dev.flux2.testkit.SyntheticReference;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Text-to-image through the public API on synthetic bundles, each image compared with {@link ExpectedImage}'s
 * independent computation (tolerance argued on {@link ImageComparison}).
 */
class SyntheticTextToImageTest {
    private static final String PROMPT = "a red fox in the snow";

    @TempDir
    static Path root;

    private static SyntheticBundle plain;
    private static SyntheticBundle engine;
    private static SyntheticBundle listed;

    @BeforeAll
    static void writeBundles() {
        // chunk_size 20 makes every attention length below a multiple of nothing useful: 48 = 20 + 20 + 8.
        plain = SyntheticBundleWriter.write(
                SyntheticBundleSpec.builder().vaeChunkSize(20).build(), root.resolve("plain"));
        engine = SyntheticBundleWriter.write(
                SyntheticBundleSpec.builder().fused(FusedConvention.ENGINE).build(), root.resolve("engine"));
        listed = SyntheticBundleWriter.write(
                SyntheticBundleSpec.builder().fused(FusedConvention.LISTED).build(), root.resolve("listed"));
    }

    private static float[] expectedPerStep(SyntheticBundle bundle, long seed, int width, int height) {
        SyntheticReference ref = bundle.reference();
        float[] ctx = ExpectedImage.context(ref, bundle.tokenizerDirectory(), PROMPT);
        float[] x = ExpectedImage.noiseTokens(seed, height / 16, width / 16);
        ExpectedImage.denoise(ref, x, ctx, ExpectedImage.Loop.textToImage(width, height, 4));
        return ExpectedImage.decode(ref, x, height / 16, width / 16);
    }

    private static float[] expectedFused(SyntheticBundle bundle, long seed, int width, int height) {
        SyntheticReference ref = bundle.reference();
        int gh = height / 16;
        int gw = width / 16;
        float[] ctx = ExpectedImage.context(ref, bundle.tokenizerDirectory(), PROMPT);
        float[] sigmas = FlowMatchSchedule.forImage(gh * gw, 4).sigmas();
        float[] latent =
                ref.fusedLatent(ExpectedImage.noiseTokens(seed, gh, gw), PositionIds.image(gw, gh), sigmas, ctx);
        return ExpectedImage.decode(ref, latent, gh, gw);
    }

    private static GenerationResult generate(Flux2Pipeline pipeline, long seed, int width, int height) {
        return pipeline.generate(
                GenerationRequest.builder(PROMPT).seed(seed).size(width, height).build());
    }

    @Test
    void perStepSquare() {
        try (Flux2Pipeline p = Flux2Pipeline.builder().model(plain.directory()).build()) {
            GenerationResult r = generate(p, 42, 64, 64);
            assertFalse(r.first().metadata().fused());
            assertEquals(4, r.first().metadata().stepsRun());
            ImageComparison.assertMatches(r.first().image(), expectedPerStep(plain, 42, 64, 64), "64x64 per step");
        }
    }

    @Test
    void perStepNonSquareWithAttentionLengthNotAMultipleOfTheChunk() {
        // 80x48: S = (48/8)(80/8) = 60 = 20·3 is a multiple, so use 48x80 → S = 60 too; 64x48 → S = 48 = 2·20 + 8.
        try (Flux2Pipeline p = Flux2Pipeline.builder()
                .model(plain.directory())
                .backendOption("vae_attention", "chunked")
                .build()) {
            GenerationResult r = generate(p, 7, 64, 48);
            assertEquals(64, r.first().image().getWidth());
            assertEquals(48, r.first().image().getHeight());
            ImageComparison.assertMatches(
                    r.first().image(),
                    expectedPerStep(plain, 7, 64, 48),
                    "64x48, 3 attention chunks, the last zero-padded");
        }
    }

    @Test
    void nonSquareTallImage() {
        try (Flux2Pipeline p = Flux2Pipeline.builder().model(plain.directory()).build()) {
            GenerationResult r = generate(p, 3, 32, 80);
            ImageComparison.assertMatches(r.first().image(), expectedPerStep(plain, 3, 32, 80), "32x80 per step");
        }
    }

    @Test
    void chunkedAndWholeAttentionAgree() {
        GenerationResult chunked;
        GenerationResult whole;
        try (Flux2Pipeline p = Flux2Pipeline.builder()
                .model(plain.directory())
                .backendOption("vae_attention", "chunked")
                .backendOption("vae_chunk_size", "16")
                .build()) {
            chunked = generate(p, 11, 80, 64); // S = 80 = 5 chunks of 16
        }
        try (Flux2Pipeline p = Flux2Pipeline.builder()
                .model(plain.directory())
                .backendOption("vae_attention", "whole")
                .build()) {
            whole = generate(p, 11, 80, 64);
        }
        // Query rows are independent, so chunking changes nothing but ONNX Runtime's summation blocking: the two
        // fp16 results differ by at most one fp16 rounding flip, which is at most 1 LSB after the post stages.
        assertTrue(ImageComparison.maxDifference(
                        chunked.first().image(), whole.first().image())
                <= 1);
        float[] expected = expectedPerStep(plain, 11, 80, 64);
        ImageComparison.assertMatches(chunked.first().image(), expected, "chunked");
        ImageComparison.assertMatches(whole.first().image(), expected, "whole");
    }

    @Test
    void fusedEngineConvention() {
        try (Flux2Pipeline p = Flux2Pipeline.builder().model(engine.directory()).build()) {
            ModelInfo info = p.modelInfo();
            assertEquals(4, info.fusedSteps());
            GenerationResult r = generate(p, 42, 64, 48);
            assertTrue(r.first().metadata().fused(), "4 steps, no images: the fused graph must run");
            ImageComparison.assertMatches(r.first().image(), expectedFused(engine, 42, 64, 48), "engine fused");
        }
    }

    @Test
    void fusedListedConvention() {
        try (Flux2Pipeline p = Flux2Pipeline.builder().model(listed.directory()).build()) {
            GenerationResult r = generate(p, 42, 48, 64);
            assertTrue(r.first().metadata().fused());
            ImageComparison.assertMatches(r.first().image(), expectedFused(listed, 42, 48, 64), "listed fused");
        }
    }

    @Test
    void fusedOffRunsPerStep() {
        try (Flux2Pipeline p = Flux2Pipeline.builder()
                .model(engine.directory())
                .backendOption("fused", "off")
                .build()) {
            assertEquals(0, p.modelInfo().fusedSteps(), "fused=off: the backend offers no fused graph");
            GenerationResult r = p.generate(
                    GenerationRequest.builder(PROMPT).seed(5).size(64, 64).build());
            assertFalse(r.first().metadata().fused());
            ImageComparison.assertMatches(r.first().image(), expectedPerStep(engine, 5, 64, 64), "forced per step");
        }
        try (Flux2Pipeline p = Flux2Pipeline.builder()
                .model(engine.directory())
                .backendOption("fused", "off")
                .build()) {
            GenerationResult r = generate(p, 5, 64, 64);
            assertFalse(r.first().metadata().fused());
            ImageComparison.assertMatches(r.first().image(), expectedPerStep(engine, 5, 64, 64), "fused=off");
        }
    }

    @Test
    void fusedGraphIsNotUsedForOtherStepCounts() {
        try (Flux2Pipeline p = Flux2Pipeline.builder().model(engine.directory()).build()) {
            GenerationResult r = p.generate(GenerationRequest.builder(PROMPT)
                    .seed(1)
                    .size(32, 32)
                    .steps(2)
                    .build());
            assertFalse(r.first().metadata().fused());
            assertEquals(2, r.first().metadata().stepsRun());
        }
    }

    @Test
    void numImagesUsesConsecutiveSeeds() {
        try (Flux2Pipeline p = Flux2Pipeline.builder().model(plain.directory()).build()) {
            GenerationResult r = p.generate(GenerationRequest.builder(PROMPT)
                    .seed(100)
                    .size(48, 32)
                    .numImages(2)
                    .build());
            assertEquals(2, r.images().size());
            assertEquals(101, r.images().get(1).metadata().seed().orElseThrow());
            ImageComparison.assertMatches(r.images().get(0).image(), expectedPerStep(plain, 100, 48, 32), "seed 100");
            ImageComparison.assertMatches(r.images().get(1).image(), expectedPerStep(plain, 101, 48, 32), "seed 101");
        }
    }
}
