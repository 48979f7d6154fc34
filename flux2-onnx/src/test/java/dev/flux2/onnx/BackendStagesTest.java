package dev.flux2.onnx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flux2.api.MemoryPolicy;
import dev.flux2.api.ModelInfo;
import dev.flux2.api.ModelLoadException;
import dev.flux2.api.ModelSummary;
import dev.flux2.api.PipelineClosedException;
import dev.flux2.math.PositionIds;
import dev.flux2.math.TorchRandom;
import dev.flux2.onnx.options.VaeAttentionMode;
import dev.flux2.onnx.session.OpenSessionCounter;
import dev.flux2.onnx.stage.OnnxTextEmbedding;
import dev.flux2.onnx.tensor.TensorBuffer;
import dev.flux2.spi.BackendConfig;
import dev.flux2.spi.DenoiseStep;
import dev.flux2.spi.DenoiserSession;
import dev.flux2.spi.DenoiserSetup;
import dev.flux2.spi.Flux2Backend;
import dev.flux2.spi.FusedSupport;
import dev.flux2.spi.LatentGrid;
import dev.flux2.spi.PixelTensor;
import dev.flux2.spi.TextEmbedding;
import dev.flux2.spi.TokenizedPrompt;
import dev.flux2.testkit.FusedConvention;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import dev.flux2.testkit.SyntheticReference;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each backend stage on its own against {@link SyntheticReference}. A single graph's fp16 output may differ from
 * the reference by one fp16 ulp of the value (the graph sums in fp32, the reference in double, and that difference
 * can flip one rounding) plus the fp32 summation error itself, which is relative to the summed terms (of order 1),
 * not to the result: for results that are small through cancellation it is worth an absolute 2^-20 (≈ 128 terms ×
 * 2^-24 × their size, with margin). The whole VAE decoder chain may differ by at most 2^-9 (the bound the testkit
 * measures and documents).
 */
class BackendStagesTest {
    private static final double DECODER_TOLERANCE = 0x1p-9;
    private static final double FP32_SUM_ERROR = 0x1p-20;

    @TempDir
    static Path root;

    private static SyntheticBundle bundle;
    private static SyntheticReference ref;
    private Flux2Backend backend;
    private int baseline;

    @BeforeAll
    static void writeBundle() {
        bundle = SyntheticBundleWriter.write(
                SyntheticBundleSpec.builder()
                        .fused(FusedConvention.ENGINE)
                        .vaeChunkSize(20)
                        .build(),
                root.resolve("bundle"));
        ref = bundle.reference();
    }

    private static BackendConfig config(Path dir, VaeAttentionMode mode) {
        return new BackendConfig(
                dir,
                MemoryPolicy.SEQUENTIAL,
                Map.of("threads", "1", "vae_attention", mode.name().toLowerCase(java.util.Locale.ROOT)));
    }

    @BeforeEach
    void open() {
        baseline = OpenSessionCounter.current();
        backend = new OnnxBackendProvider().open(config(bundle.directory(), VaeAttentionMode.AUTO));
    }

    @AfterEach
    void close() {
        backend.close();
        assertEquals(baseline, OpenSessionCounter.current(), "every session released");
    }

    /** @return one fp16 ulp at the magnitude of v */
    private static double ulp16(float v) {
        float a = Math.abs(v);
        return a < 0x1p-14f ? 0x1p-24 : Math.scalb(1.0, Math.getExponent(a) - 10);
    }

    private static void assertWithinOneUlp(float[] expected, float[] actual, String what) {
        assertEquals(expected.length, actual.length, what + " length");
        int flips = 0;
        for (int i = 0; i < expected.length; i++) {
            double d = Math.abs(expected[i] - actual[i]);
            double bound = ulp16(Math.max(Math.abs(expected[i]), Math.abs(actual[i]))) + FP32_SUM_ERROR;
            assertTrue(d <= bound, what + "[" + i + "]: expected " + expected[i] + ", got " + actual[i]);
            flips += d > 0 ? 1 : 0;
        }
        assertTrue(flips <= expected.length / 100 + 1, what + ": " + flips + " rounding flips is more than fp32 noise");
    }

    private static float[] contextOf(TextEmbedding text, int values) {
        TensorBuffer ctx = ((OnnxTextEmbedding) text).context();
        float[] out = new float[values];
        ctx.readFloats(0, out, 0, values);
        return out;
    }

    @Test
    void modelInfoComesFromTheConfig() {
        ModelInfo info = backend.modelInfo();
        assertEquals(bundle.spec().modelVariant(), info.variant());
        assertTrue(info.distilled());
        assertEquals(4, info.defaultSteps());
        assertEquals(1.0f, info.defaultGuidance());
        assertEquals(64, info.defaultWidth());
        assertEquals(64, info.textSequenceLength());
        assertTrue(info.supportsImageInput());
        assertEquals(4, info.fusedSteps());
    }

    @Test
    void textEncoderMatchesTheReference() {
        TokenizedPrompt tokens = backend.tokenize("a red fox in the snow");
        assertEquals(64, tokens.inputIds().length);
        assertEquals(18, tokens.realTokens(), "docs/pipeline-reference.md §3 example: 18 real tokens");
        TestStageContext context = new TestStageContext();
        try (TextEmbedding text = backend.encodeText(tokens, context)) {
            assertWithinOneUlp(
                    ref.textContext(tokens.inputIds(), tokens.attentionMask()), contextOf(text, 64 * 32), "ctx");
        }
        assertTrue(context.runtimeNanos.get() > 0);
    }

    @Test
    void contextClipAndZeroPaddingFollowTheConfig(@TempDir Path dir) throws IOException {
        SyntheticBundle b =
                SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), dir);
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode config = (ObjectNode) mapper.readTree(b.configFile().toFile());
        config.put("context_clip", 0.05).put("zero_padded_context", true);
        mapper.writeValue(b.configFile().toFile(), config);
        try (Flux2Backend clipped = new OnnxBackendProvider().open(config(dir, VaeAttentionMode.AUTO))) {
            TokenizedPrompt tokens = clipped.tokenize("snow");
            float[] expected = b.reference().textContext(tokens.inputIds(), tokens.attentionMask());
            try (TextEmbedding text = clipped.encodeText(tokens, new TestStageContext())) {
                float[] got = contextOf(text, expected.length);
                for (int row = 0; row < 64; row++) {
                    for (int i = 0; i < 32; i++) {
                        float want = tokens.attentionMask()[row] == 0
                                ? 0f
                                : Math.max(-0.05f, Math.min(0.05f, expected[row * 32 + i]));
                        // Clamping happens after fp16 rounding; the clip value itself is rounded to fp16 on storage.
                        assertEquals(want, got[row * 32 + i], ulp16(want) + 1e-7, "row " + row + " col " + i);
                    }
                }
            }
        }
    }

    @Test
    void velocityMatchesTheReferenceWithAndWithoutReferenceTokens() {
        int gh = 2;
        int gw = 3;
        float[] latent = TorchRandom.randn(3L, 6 * 128);
        float[] refTokens = TorchRandom.randn(4L, 4 * 128);
        TokenizedPrompt tokens = backend.tokenize("a boat");
        float[] ctx = ref.textContext(tokens.inputIds(), tokens.attentionMask());
        try (TextEmbedding text = backend.encodeText(tokens, new TestStageContext())) {
            for (boolean withRefs : new boolean[] {false, true}) {
                float[] refs = withRefs ? refTokens : new float[0];
                float[] ids = PositionIds.concat(
                        PositionIds.image(gw, gh), withRefs ? PositionIds.reference(0, 2, 2) : new float[0]);
                DenoiserSetup setup = new DenoiserSetup(gw, gh, ids, refs, PositionIds.text(64));
                float[] v = new float[6 * 128];
                try (DenoiserSession session = backend.openDenoiser(setup, new TestStageContext())) {
                    session.predictVelocity(new DenoiseStep(1, 4, 0.9f, 0.7f), latent, text, v);
                }
                float[] all = new float[latent.length + refs.length];
                System.arraycopy(latent, 0, all, 0, latent.length);
                System.arraycopy(refs, 0, all, latent.length, refs.length);
                float[] expected = java.util.Arrays.copyOf(ref.velocity(all, ids, 0.9f, ctx), 6 * 128);
                assertWithinOneUlp(expected, v, withRefs ? "velocity with references" : "velocity");
            }
        }
    }

    @Test
    void fusedSupportExplainsItself() {
        DenoiserSetup plain = new DenoiserSetup(2, 2, PositionIds.image(2, 2), new float[0], PositionIds.text(64));
        try (DenoiserSession s = backend.openDenoiser(plain, new TestStageContext())) {
            FusedSupport four = s.fusedSupport(4);
            assertTrue(four.available(), four.reason());
            assertTrue(four.reason().startsWith("engine"), four.reason());
            FusedSupport three = s.fusedSupport(3);
            assertFalse(three.available());
            assertTrue(three.reason().contains("exactly 4 steps"), three.reason());
        }
        DenoiserSetup withRef = new DenoiserSetup(
                2,
                2,
                PositionIds.concat(PositionIds.image(2, 2), PositionIds.reference(0, 1, 1)),
                new float[128],
                PositionIds.text(64));
        try (DenoiserSession s = backend.openDenoiser(withRef, new TestStageContext())) {
            FusedSupport support = s.fusedSupport(4);
            assertFalse(support.available());
            assertTrue(support.reason().contains("reference"), support.reason());
        }
    }

    @Test
    void decoderMatchesTheReferenceChunkedAndWhole() {
        int gh = 3;
        int gw = 4; // S = (48/8)(64/8) = 48 = 20 + 20 + 8
        float[] latent = TorchRandom.randn(7L, 128 * gh * gw);
        float[] expected = ref.decodeLatent(latent, gw, gh);
        for (VaeAttentionMode mode : new VaeAttentionMode[] {VaeAttentionMode.CHUNKED, VaeAttentionMode.WHOLE}) {
            try (Flux2Backend b = new OnnxBackendProvider().open(config(bundle.directory(), mode))) {
                TestStageContext context = new TestStageContext();
                PixelTensor pixels = b.decodeLatent(new LatentGrid(latent.clone(), 128, gw, gh), context);
                assertEquals(64, pixels.width());
                assertEquals(48, pixels.height());
                double max = 0;
                for (int i = 0; i < expected.length; i++) {
                    max = Math.max(max, Math.abs(expected[i] - pixels.data()[i]));
                }
                assertTrue(max <= DECODER_TOLERANCE, mode + ": max |Δ| " + max);
                assertEquals(
                        mode == VaeAttentionMode.CHUNKED
                                ? List.of("VAE_DECODE 1/3", "VAE_DECODE 2/3", "VAE_DECODE 3/3")
                                : List.of("VAE_DECODE 1/1"),
                        context.progress,
                        mode + ": one progress unit per attention call");
            }
        }
    }

    @Test
    void encoderMatchesTheReference() {
        float[] pixels = new float[3 * 32 * 48];
        for (int i = 0; i < pixels.length; i++) {
            pixels[i] = (float) Math.sin(i * 0.05);
        }
        LatentGrid z = backend.encodeImage(new PixelTensor(pixels.clone(), 48, 32), new TestStageContext());
        assertEquals(128, z.channels());
        assertEquals(2, z.height());
        assertEquals(3, z.width());
        assertWithinOneUlp(ref.encodeImage(pixels, 48, 32), z.data(), "z");
    }

    @Test
    void everyCallAfterCloseThrowsPipelineClosed() {
        DenoiserSetup setup = new DenoiserSetup(1, 1, PositionIds.image(1, 1), new float[0], PositionIds.text(64));
        TokenizedPrompt tokens = backend.tokenize("x");
        DenoiserSession session = backend.openDenoiser(setup, new TestStageContext());
        TextEmbedding text = backend.encodeText(tokens, new TestStageContext());
        backend.close();
        backend.close();
        assertThrows(PipelineClosedException.class, () -> backend.tokenize("x"));
        assertThrows(PipelineClosedException.class, () -> backend.encodeText(tokens, new TestStageContext()));
        assertThrows(PipelineClosedException.class, backend::modelInfo);
        assertThrows(
                PipelineClosedException.class,
                () -> backend.decodeLatent(new LatentGrid(new float[128], 128, 1, 1), new TestStageContext()));
        assertThrows(
                PipelineClosedException.class,
                () -> session.predictVelocity(new DenoiseStep(0, 1, 1f, 0f), new float[128], text, new float[128]));
        session.close();
        text.close();
    }

    @Test
    void bundleWithoutEncoderRefusesToEncodeImages(@TempDir Path dir) {
        SyntheticBundleWriter.write(
                SyntheticBundleSpec.builder().vaeEncoder(false).build(), dir);
        try (Flux2Backend b = new OnnxBackendProvider().open(config(dir, VaeAttentionMode.AUTO))) {
            assertFalse(b.modelInfo().supportsImageInput());
            assertEquals(0, b.modelInfo().fusedSteps());
            String msg = assertThrows(
                            ModelLoadException.class,
                            () -> b.encodeImage(
                                    new PixelTensor(new float[3 * 16 * 16], 16, 16), new TestStageContext()))
                    .getMessage();
            assertTrue(msg.contains("no vae_encoder graph"), msg);
        }
    }

    @Test
    void inspectDescribesGraphsWithoutOpeningSessions() {
        ModelSummary s = dev.flux2.Flux2Models.inspect(bundle.directory());
        assertEquals("onnx", s.backend());
        assertEquals("engine", s.details().get("fused_denoiser_convention"));
        assertTrue(s.details().get("execution_providers_available").contains("CPU"));
        // What MemoryPolicy.AUTO would choose here, and why (a miniature bundle fits any test machine).
        String auto = s.details().get("memory_policy_auto");
        assertTrue(auto.startsWith("resident: estimated resident peak") && auto.contains("available"), auto);
        assertTrue(
                s.details().get("session_weights").contains("transformer"),
                s.details().toString());
        assertEquals("tokenizer", s.details().get("tokenizer_dir"));
        assertEquals(
                Integer.toString(bundle.spec().textSequenceLength()),
                s.details().get("text_seq_len"));
        assertTrue(
                s.files().stream().allMatch(ModelSummary.FileEntry::ok),
                s.files().toString());
        assertEquals(10, s.graphs().size());
        ModelSummary.GraphEntry transformer = s.graphs().stream()
                .filter(g -> g.key().equals("transformer"))
                .findFirst()
                .orElseThrow();
        assertEquals(
                List.of("x", "x_ids", "timesteps", "ctx", "ctx_ids"),
                transformer.inputs().stream()
                        .map(ModelSummary.TensorEntry::name)
                        .toList());
        assertEquals(
                new ModelSummary.TensorEntry("x", "FLOAT16", "[batch, image_seq, 128]"),
                transformer.inputs().get(0));
        assertEquals("none", s.details().get("problems"));
        // The typed accessors the CLI reads agree with the details written.
        assertEquals(java.util.Optional.empty(), s.problems());
        assertTrue(s.partsComplete());
        assertEquals(java.util.Optional.of("tokenizer"), s.tokenizerDir());
        assertEquals(java.util.OptionalInt.of(bundle.spec().textSequenceLength()), s.textSequenceLength());
        assertEquals(java.util.Optional.of(s.details().get("layout")), s.layout());
        assertEquals(baseline, OpenSessionCounter.current());
    }
}
