package dev.flux2.onnx.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.flux2.Flux2Pipeline;
import dev.flux2.api.CancellationToken;
import dev.flux2.api.Flux2Exception;
import dev.flux2.api.GenerationCancelledException;
import dev.flux2.api.GenerationControls;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.api.MemoryPolicy;
import dev.flux2.api.PipelineClosedException;
import dev.flux2.api.ProgressEvent;
import dev.flux2.api.Stage;
import dev.flux2.onnx.runtime.OrtNativeLibrary;
import dev.flux2.onnx.runtime.RuntimeLibraryException;
import dev.flux2.onnx.runtime.RuntimeReport;
import dev.flux2.onnx.runtime.WebGpuRuntime;
import dev.flux2.testkit.FusedConvention;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The WebGPU provider end to end on synthetic bundles (on a CPU-only machine: Mesa's lavapipe through Vulkan): every
 * image compared with the CPU provider's image of the same request (at most {@link #MAX_LSB_VS_CPU} level apart,
 * measured in docs/gpu.md) and with the testkit's independent computation ({@link ImageComparison}). Runs in the
 * surefire execution {@code webgpu} (a JVM of its own: ONNX Runtime must load the WebGPU runtime's library there);
 * skips when the runtime ({@code flux2 runtime install webgpu}, or {@code FLUX2_WEBGPU_LIBRARY}) or a WebGPU adapter is
 * missing, unless {@code FLUX2_WEBGPU_TESTS=require} (set by .ci/run) makes that a failure.
 */
class WebGpuPipelineTest {
    /** Largest per-channel difference from the CPU provider's image: 1 level on lavapipe and on an H200. */
    static final int MAX_LSB_VS_CPU = 1;

    private static final String PROMPT = "a red fox in the snow";

    @TempDir
    static Path root;

    private static Path library;
    private static boolean wrongJvm;
    private static SyntheticBundle plain;
    private static SyntheticBundle engine;

    @BeforeAll
    static void requireWebGpu() {
        boolean required = "require".equals(System.getenv("FLUX2_WEBGPU_TESTS"));
        String why = setUp();
        if (why != null) {
            if (required && !wrongJvm) {
                fail("FLUX2_WEBGPU_TESTS=require but " + why);
            }
            Assumptions.abort(why);
        }
        plain = SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), root.resolve("plain"));
        engine = SyntheticBundleWriter.write(
                SyntheticBundleSpec.builder().fused(FusedConvention.ENGINE).build(), root.resolve("engine"));
    }

    /** @return why WebGPU cannot be tested here, or null */
    private static String setUp() {
        try {
            String env = System.getenv("FLUX2_WEBGPU_LIBRARY");
            library = env != null && !env.isBlank() ? Path.of(env) : WebGpuRuntime.locate(WebGpuRuntime.defaultHome());
            if (OrtNativeLibrary.initialised()
                    && !OrtNativeLibrary.describeLoaded()
                            .equals(library.toAbsolutePath().normalize().toString())) {
                // A filtered run (-Dtest) puts this class into the default JVM, where ONNX Runtime already runs on
                // the jar's library: the wrong JVM, not a broken setup.
                wrongJvm = true;
                return "ONNX Runtime already runs on " + OrtNativeLibrary.describeLoaded()
                        + " in this JVM; these tests run in the surefire execution webgpu";
            }
            var environment =
                    OrtNativeLibrary.environment(new OrtNativeLibrary.Choice(Optional.of(library), "the test"));
            OrtNativeLibrary.keepEnvironmentAtExit();
            String device = RuntimeReport.probeWebGpu(environment);
            return device.startsWith("ok") ? null : "no WebGPU device: " + device;
        } catch (RuntimeLibraryException e) {
            return "no WebGPU runtime: " + e.getMessage();
        }
    }

    private static Flux2Pipeline.Builder webGpu(SyntheticBundle bundle) {
        return Flux2Pipeline.builder()
                .model(bundle.directory())
                .backendOption("providers", "webgpu")
                .backendOption("ort_library", library.toString());
    }

    private static BufferedImage cpu(SyntheticBundle bundle, GenerationRequest request) {
        try (Flux2Pipeline p = Flux2Pipeline.builder().model(bundle.directory()).build()) {
            return p.generate(request).first().image();
        }
    }

    private static void assertAsCpuAndReference(BufferedImage gpu, BufferedImage cpu, float[] expected, String what) {
        int d = ImageComparison.maxDifference(gpu, cpu);
        assertTrue(d <= MAX_LSB_VS_CPU, what + ": " + d + " levels from the CPU provider's image");
        ImageComparison.assertMatches(gpu, expected, what + " on WebGPU");
    }

    private static GenerationRequest request(long seed, int w, int h) {
        return GenerationRequest.builder(PROMPT).seed(seed).size(w, h).build();
    }

    @Test
    void perStepAndFused() {
        GenerationRequest r = request(42, 64, 48);
        try (Flux2Pipeline p = webGpu(plain).build()) {
            GenerationResult g = p.generate(r);
            assertFalse(g.first().metadata().fused());
            assertAsCpuAndReference(
                    g.first().image(),
                    cpu(plain, r),
                    ExpectedGeneration.of(plain).textToImage(PROMPT, 42, 64, 48),
                    "per step");
        }
        try (Flux2Pipeline p = webGpu(engine).build()) {
            GenerationResult g = p.generate(r);
            assertTrue(g.first().metadata().fused());
            // The fused graph's expected image: SyntheticTextToImageTest.expectedFused, through the CPU image here.
            BufferedImage c = cpu(engine, r);
            assertTrue(ImageComparison.maxDifference(g.first().image(), c) <= MAX_LSB_VS_CPU, "fused vs CPU");
        }
    }

    @Test
    void imageToImageAndReferences() {
        BufferedImage init = ExpectedImage.testImage(64, 48, 0);
        GenerationRequest i2i = GenerationRequest.builder(PROMPT)
                .seed(9)
                .initImage(init)
                .strength(0.6)
                .build();
        BufferedImage first = ExpectedImage.testImage(64, 64, 3);
        BufferedImage second = ExpectedImage.testImage(80, 64, 17);
        GenerationRequest refs = GenerationRequest.builder(PROMPT)
                .seed(4)
                .size(48, 32)
                .addReferenceImage(first)
                .addReferenceImage(second)
                .build();
        ExpectedGeneration expected = ExpectedGeneration.of(engine);
        try (Flux2Pipeline p = webGpu(engine).build()) {
            assertAsCpuAndReference(
                    p.generate(i2i).first().image(),
                    cpu(engine, i2i),
                    expected.imageToImage(PROMPT, 9, init, 0.6),
                    "img2img");
            assertAsCpuAndReference(
                    p.generate(refs).first().image(),
                    cpu(engine, refs),
                    expected.withReferences(PROMPT, 4, 48, 32, first, second),
                    "two references");
        }
    }

    @Test
    void severalGenerationsInOnePipeline() {
        ExpectedGeneration expected = ExpectedGeneration.of(plain);
        for (MemoryPolicy policy : List.of(MemoryPolicy.RESIDENT, MemoryPolicy.SEQUENTIAL)) {
            try (Flux2Pipeline p = webGpu(plain).memoryPolicy(policy).build()) {
                for (long seed = 1; seed <= 3; seed++) {
                    ImageComparison.assertMatches(
                            p.generate(request(seed, 48, 32)).first().image(),
                            expected.textToImage(PROMPT, seed, 48, 32),
                            policy + " generation " + seed);
                }
            }
        }
    }

    @Test
    void twoPipelinesGeneratingAtOnce() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try (Flux2Pipeline a = webGpu(plain).build();
                Flux2Pipeline b = webGpu(plain).backendOption("fused", "off").build()) {
            List<Future<BufferedImage>> images = new ArrayList<>();
            for (int k = 0; k < 4; k++) {
                Flux2Pipeline p = k % 2 == 0 ? a : b;
                long seed = 20 + k;
                images.add(pool.submit(
                        () -> p.generate(request(seed, 48, 32)).first().image()));
            }
            ExpectedGeneration expected = ExpectedGeneration.of(plain);
            for (int k = 0; k < 4; k++) {
                ImageComparison.assertMatches(
                        images.get(k).get(120, TimeUnit.SECONDS),
                        expected.textToImage(PROMPT, 20 + k, 48, 32),
                        "concurrent generation " + k);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void cancellationStopsAndThePipelineStaysUsable() {
        CancellationToken token = new CancellationToken();
        try (Flux2Pipeline p = webGpu(plain).build()) {
            assertThrows(
                    GenerationCancelledException.class,
                    () -> p.generate(
                            GenerationRequest.builder(PROMPT)
                                    .seed(5)
                                    .size(48, 32)
                                    .build(),
                            GenerationControls.none()
                                    .withProgress(e -> {
                                        if (e.stage() == Stage.DENOISE
                                                && e.kind() == ProgressEvent.Kind.ADVANCED
                                                && e.completed() == 2) {
                                            token.cancel();
                                        }
                                    })
                                    .withCancellation(token)));
            ImageComparison.assertMatches(
                    p.generate(request(6, 48, 32)).first().image(),
                    ExpectedGeneration.of(plain).textToImage(PROMPT, 6, 48, 32),
                    "after a cancellation");
        }
    }

    @Test
    void closeDuringAGenerationEndsItCleanly() throws Exception {
        Flux2Pipeline p = webGpu(plain).build();
        CountDownLatch denoising = new CountDownLatch(1);
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                p.generate(
                        GenerationRequest.builder(PROMPT).seed(8).size(48, 32).build(),
                        GenerationControls.none().withProgress(e -> {
                            if (e.stage() == Stage.DENOISE && e.kind() == ProgressEvent.Kind.ADVANCED) {
                                denoising.countDown();
                            }
                        }));
            } catch (Throwable e) {
                outcome.set(e);
            }
        });
        t.start();
        assertTrue(denoising.await(120, TimeUnit.SECONDS), "the generation reached the denoise loop");
        p.close();
        t.join(120_000);
        assertFalse(t.isAlive(), "the generation ended after close");
        Throwable e = outcome.get();
        // It may have finished before close took effect; otherwise it ends with a closed or cancelled error.
        assertTrue(
                e == null || e instanceof PipelineClosedException || e instanceof GenerationCancelledException,
                "ended with " + e);
        assertTrue(e == null || e instanceof Flux2Exception);
        try (Flux2Pipeline again = webGpu(plain).build()) {
            assertEquals(48, again.generate(request(8, 48, 32)).first().image().getWidth());
        }
    }
}
