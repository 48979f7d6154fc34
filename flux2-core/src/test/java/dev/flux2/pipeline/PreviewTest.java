package dev.flux2.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.GenerationControls;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.api.Preview;
import dev.flux2.api.PreviewMode;
import dev.flux2.api.PreviewOptions;
import dev.flux2.image.ImageConversion;
import dev.flux2.spi.LatentGrid;
import dev.flux2.testkit.ReferenceMath;
import java.awt.image.BufferedImage;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** Live previews: which steps, what they show, and that they never change the generated image. */
class PreviewTest {
    private static final String PROMPT = "a lighthouse at dusk";

    private record Run(FakeBackend backend, GenerationResult result, List<Preview> previews, String log) {}

    private static Run run(
            FakeBackend backend, UnaryOperator<GenerationRequest.Builder> request, PreviewOptions options) {
        List<Preview> previews = new ArrayList<>();
        GenerationControls controls = options == null
                ? GenerationControls.none()
                : GenerationControls.none().withPreviews(options, previews::add);
        try (GenerationEngine engine = new GenerationEngine(backend);
                LogCapture log = new LogCapture()) {
            GenerationResult result = engine.generate(
                    request.apply(GenerationRequest.builder(PROMPT).seed(5).size(64, 48))
                            .build(),
                    controls);
            return new Run(backend, result, previews, log.text());
        }
    }

    private static Run perStep(UnaryOperator<GenerationRequest.Builder> request, PreviewOptions options) {
        return run(new FakeBackend(FakeModel.distilledModel(), FakeBackend.FUSED_OFF), request, options);
    }

    private static void assertSameImages(GenerationResult expected, GenerationResult actual) {
        assertEquals(expected.images().size(), actual.images().size());
        for (int k = 0; k < expected.images().size(); k++) {
            assertArrayEquals(
                    ReferenceMath.rgb(expected.images().get(k).image()),
                    ReferenceMath.rgb(actual.images().get(k).image()),
                    "image " + k);
        }
    }

    private static BufferedImage inpaintMask() {
        BufferedImage mask = new BufferedImage(64, 48, BufferedImage.TYPE_BYTE_GRAY);
        for (int y = 0; y < 48; y++) {
            for (int x = 0; x < 32; x++) {
                mask.getRaster().setSample(x, y, 0, 255);
            }
        }
        return mask;
    }

    @Test
    void previewsNeverChangeTheImagesBitForBit() {
        List<UnaryOperator<GenerationRequest.Builder>> requests = List.of(
                b -> b,
                b -> b.numImages(2).steps(6),
                b -> b.initImage(ReferenceMath.testImage(64, 48, 3)).strength(0.6),
                b -> b.initImage(ReferenceMath.testImage(64, 48, 4))
                        .mask(inpaintMask())
                        .strength(1.0));
        for (UnaryOperator<GenerationRequest.Builder> request : requests) {
            Run plain = perStep(request, null);
            for (PreviewOptions options : List.of(
                    PreviewOptions.linear(1),
                    PreviewOptions.vae(1),
                    PreviewOptions.linear(2).withMaxSize(200))) {
                Run previewed = perStep(request, options);
                assertFalse(previewed.previews().isEmpty(), options.toString());
                assertSameImages(plain.result(), previewed.result());
                // the final latents that were decoded are the same too: the last decodes of each run
                List<LatentGrid> a = plain.backend().decodedLatents;
                List<LatentGrid> b = previewed.backend().decodedLatents;
                for (int k = 1; k <= plain.result().images().size(); k++) {
                    assertArrayEquals(
                            a.get(a.size() - k).data(), b.get(b.size() - k).data());
                }
            }
        }
    }

    @Test
    void withoutPreviewsNothingExtraRuns() {
        Run plain = perStep(b -> b, null);
        assertEquals(1, plain.backend().decodedLatents.size(), "only the final decode, no projection fit");
        assertTrue(plain.previews().isEmpty());
    }

    @Test
    void previewsFollowEveryKthStepButNotTheLast() {
        assertEquals(List.of(1, 2, 3), steps(perStep(b -> b, PreviewOptions.linear(1))));
        assertEquals(List.of(2), steps(perStep(b -> b, PreviewOptions.linear(2))));
        assertEquals(List.of(2, 4), steps(perStep(b -> b.steps(6), PreviewOptions.linear(2))));
        assertEquals(List.of(), steps(perStep(b -> b, PreviewOptions.linear(4))));
        // img2img counts the steps it runs: strength 0.5 of 6 steps runs 3
        Run img2img = perStep(
                b -> b.steps(6).initImage(ReferenceMath.testImage(64, 48, 3)).strength(0.5), PreviewOptions.linear(1));
        assertEquals(List.of(1, 2), steps(img2img));
        assertTrue(img2img.previews().stream().allMatch(p -> p.steps() == 3));
        // two images: each its own previews, in order
        Run two = perStep(b -> b.numImages(2), PreviewOptions.linear(2));
        assertEquals(
                List.of(0, 1), two.previews().stream().map(Preview::imageIndex).toList());
    }

    private static List<Integer> steps(Run run) {
        return run.previews().stream().map(Preview::step).toList();
    }

    @Test
    void vaePreviewDecodesThePredictedCleanLatent() {
        Run run = perStep(b -> b, PreviewOptions.vae(1));
        List<FakeBackend.VelocityCall> calls = run.backend().velocityCalls;
        assertEquals(3, run.previews().size());
        for (Preview preview : run.previews()) {
            FakeBackend.VelocityCall call = calls.get(preview.step() - 1);
            float sigma = call.step().sigma();
            float[] clean = new float[call.latent().length];
            for (int k = 0; k < clean.length; k++) {
                clean[k] = call.latent()[k] - sigma * call.velocity()[k];
            }
            LatentGrid grid = new LatentGrid(ReferenceMath.unpack(clean, 128, 3, 4), 128, 4, 3);
            assertArrayEquals(
                    ReferenceMath.rgb(ImageConversion.toImage(FakeModel.decode(grid))),
                    ReferenceMath.rgb(preview.image()),
                    "step " + preview.step());
            assertEquals(PreviewMode.VAE, preview.mode());
            assertEquals(64, preview.image().getWidth());
        }
    }

    @Test
    void inpaintingPreviewsKeepTheInitLatentOutsideTheMask() {
        Run run = perStep(
                b -> b.initImage(ReferenceMath.testImage(64, 48, 4))
                        .mask(inpaintMask())
                        .strength(1.0),
                PreviewOptions.vae(1));
        float[] x0 = ReferenceMath.pack(run.backend().encodedLatents.get(0).data(), 128, 3, 4);
        // tokens of columns 2, 3 lie under the black half of the mask: the preview's latent there is the init's
        LatentGrid first = run.backend().decodedLatents.get(0);
        float[] previewTokens = ReferenceMath.pack(first.data(), 128, 3, 4);
        for (int i = 0; i < 3; i++) {
            for (int j = 2; j < 4; j++) {
                int t = i * 4 + j;
                for (int f = 0; f < 128; f++) {
                    assertEquals(x0[t * 128 + f], previewTokens[t * 128 + f], 1e-6f, "token " + t);
                }
            }
        }
    }

    @Test
    void linearPreviewIsFittedOnceAndApproximatesTheDecode() {
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel(), FakeBackend.FUSED_OFF);
        List<Preview> linear = new ArrayList<>();
        List<Preview> exact = new ArrayList<>();
        GenerationRequest request =
                GenerationRequest.builder(PROMPT).seed(9).size(256, 192).build();
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            engine.generate(request, GenerationControls.none().withPreviews(PreviewOptions.linear(1), linear::add));
            int afterFirst = backend.decodedLatents.size();
            engine.generate(request, GenerationControls.none().withPreviews(PreviewOptions.linear(1), linear::add));
            assertEquals(2, afterFirst, "one fit decode of a 32x32 latent, one final decode");
            assertEquals(32, backend.decodedLatents.get(0).width());
            assertEquals(afterFirst + 1, backend.decodedLatents.size(), "the fit is not repeated");
            engine.generate(request, GenerationControls.none().withPreviews(PreviewOptions.vae(1), exact::add));
        }
        assertEquals(32, linear.get(0).image().getWidth(), "W/8");
        assertEquals(24, linear.get(0).image().getHeight(), "H/8");
        for (int k = 0; k < exact.size(); k++) {
            BufferedImage truth = exact.get(k).image();
            double linearError = blockError(linear.get(k).image(), truth);
            double flatError = blockError(flat(truth), truth);
            // the fake decoder saturates (tanh) on these latents, far outside the fitting distribution
            assertTrue(
                    linearError < flatError,
                    "step " + exact.get(k).step() + ": linear " + linearError + " vs a flat image " + flatError);
        }
    }

    @Test
    void linearProjectionMatchesTheDecodeOnHeldOutLatents() {
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel());
        var projection = LinearPreviewFit.fit(backend, new GenerationContext(dev.flux2.api.ProgressListener.NONE, 1));
        float[] latent = TextToImageTest.gaussian(128 * 12 * 16, 99);
        LatentGrid grid = new LatentGrid(latent, 128, 16, 12);
        BufferedImage truth = ImageConversion.toImage(FakeModel.decode(grid));
        BufferedImage linear =
                ImageConversion.toImage(projection.project(ReferenceMath.pack(latent, 128, 12, 16), 16, 12));
        double linearError = blockError(linear, truth);
        double flatError = blockError(flat(truth), truth);
        assertTrue(linearError < flatError / 3, "linear " + linearError + " vs flat " + flatError);
    }

    /** Mean absolute difference (0..255) between a W/8 preview and the 8×8 block means of the exact image. */
    private static double blockError(BufferedImage small, BufferedImage truth) {
        double sum = 0;
        int count = 0;
        for (int y = 0; y < small.getHeight(); y++) {
            for (int x = 0; x < small.getWidth(); x++) {
                int p = small.getRGB(x, y);
                for (int c = 0; c < 3; c++) {
                    double mean = 0;
                    for (int dy = 0; dy < 8; dy++) {
                        for (int dx = 0; dx < 8; dx++) {
                            mean += (truth.getRGB(8 * x + dx, 8 * y + dy) >> (16 - 8 * c)) & 0xff;
                        }
                    }
                    sum += Math.abs(((p >> (16 - 8 * c)) & 0xff) - mean / 64);
                    count++;
                }
            }
        }
        return sum / count;
    }

    /** The exact image's mean colour, at a W/8 size: the preview a projection without information would give. */
    private static BufferedImage flat(BufferedImage truth) {
        long[] sum = new long[3];
        for (int y = 0; y < truth.getHeight(); y++) {
            for (int x = 0; x < truth.getWidth(); x++) {
                int p = truth.getRGB(x, y);
                for (int c = 0; c < 3; c++) {
                    sum[c] += (p >> (16 - 8 * c)) & 0xff;
                }
            }
        }
        long n = (long) truth.getWidth() * truth.getHeight();
        int rgb = (int) (sum[0] / n) << 16 | (int) (sum[1] / n) << 8 | (int) (sum[2] / n);
        BufferedImage out = new BufferedImage(truth.getWidth() / 8, truth.getHeight() / 8, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < out.getHeight(); y++) {
            for (int x = 0; x < out.getWidth(); x++) {
                out.setRGB(x, y, rgb);
            }
        }
        return out;
    }

    @Test
    void maxSizeScalesToTheLongerSide() {
        Run run = perStep(b -> b, PreviewOptions.linear(1).withMaxSize(128));
        assertEquals(128, run.previews().get(0).image().getWidth());
        assertEquals(96, run.previews().get(0).image().getHeight());
        Run vae = perStep(b -> b, PreviewOptions.vae(1).withMaxSize(32));
        assertEquals(32, vae.previews().get(0).image().getWidth());
        assertEquals(24, vae.previews().get(0).image().getHeight());
    }

    @Test
    void previewsRuleOutTheFusedGraphAndGiveThePerStepImage() {
        Run fusedOff = perStep(b -> b, null);
        Run previewed = run(new FakeBackend(FakeModel.distilledModel()), b -> b, PreviewOptions.linear(1));
        assertFalse(previewed.result().first().metadata().fused());
        assertEquals(0, previewed.backend().fusedCalls.size());
        assertEquals(4, previewed.backend().velocityCalls.size());
        assertTrue(previewed.log().contains("live previews need the latent after every step"), previewed.log());
        assertSameImages(fusedOff.result(), previewed.result());
        Run fused = run(new FakeBackend(FakeModel.distilledModel()), b -> b, null);
        assertTrue(fused.result().first().metadata().fused(), "without previews the fused graph still runs");
    }

    @Test
    void aFailingListenerDoesNotLoseTheImage() {
        Run plain = perStep(b -> b, null);
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel(), FakeBackend.FUSED_OFF);
        GenerationResult result;
        try (GenerationEngine engine = new GenerationEngine(backend);
                LogCapture log = new LogCapture()) {
            result = engine.generate(
                    GenerationRequest.builder(PROMPT).seed(5).size(64, 48).build(),
                    GenerationControls.none().withPreviews(PreviewOptions.linear(1), p -> {
                        throw new IllegalStateException("disk full");
                    }));
            assertTrue(log.text().contains("disk full"), log.text());
        }
        assertSameImages(plain.result(), result);
    }

    @Test
    void aFailingPreviewDecodeDoesNotLoseTheImage() {
        Run plain = perStep(b -> b, null);
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel(), FakeBackend.FUSED_OFF);
        List<Preview> previews = new ArrayList<>();
        GenerationResult result;
        try (GenerationEngine engine = new GenerationEngine(backend);
                LogCapture log = new LogCapture()) {
            result = engine.generate(
                    GenerationRequest.builder(PROMPT).seed(5).size(64, 48).build(),
                    GenerationControls.none()
                            .withProgress(event -> {
                                if (event.stage() == dev.flux2.api.Stage.DENOISE
                                        && event.kind() == dev.flux2.api.ProgressEvent.Kind.FINISHED) {
                                    backend.failOnDecode = null; // the final decode works again
                                }
                            })
                            .withPreviews(PreviewOptions.vae(1), p -> {
                                previews.add(p);
                                backend.failOnDecode = new IllegalStateException("decoder out of memory (test)");
                            }));
            assertTrue(log.text().contains("continuing without previews"), log.text());
            assertTrue(log.text().contains("decoder out of memory (test)"), log.text());
        }
        assertEquals(1, previews.size(), "the second preview failed, the third was not tried");
        assertSameImages(plain.result(), result);
    }

    @Test
    void badOptionsAreRefused() {
        assertThrows(InvalidRequestException.class, () -> PreviewOptions.linear(0));
        assertThrows(InvalidRequestException.class, () -> PreviewOptions.vae(1).withMaxSize(8));
        assertThrows(InvalidRequestException.class, () -> PreviewOptions.vae(1).withMaxSize(5000));
        assertThrows(
                NullPointerException.class,
                () -> GenerationControls.none().withPreviews(PreviewOptions.linear(1), null));
        assertTrue(GenerationControls.none().withPreviews(null, null).previews().isEmpty());
    }
}
