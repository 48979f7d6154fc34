package dev.flux2.onnx.bundle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flux2.api.ModelLoadException;
import dev.flux2.onnx.SeedConfigFiles;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract checks on hand-made signatures that follow docs/bundle-format.md §8 for the seed config (512 × 7680
 * text, fp16 activations, fp32 ids), with one thing changed per test.
 */
public class GraphContractsTest {
    private static final ElementType H = ElementType.FLOAT16;
    private static final ElementType F = ElementType.FLOAT;

    @TempDir
    Path dir;

    private BundleConfig config(Consumer<ObjectNode> edit) {
        ObjectNode n = SeedConfigFiles.seedConfig();
        edit.accept(n);
        return BundleConfigReader.read(SeedConfigFiles.write(n, dir.resolve(BundleConfigReader.FILE_NAME)));
    }

    private static TensorSignature t(String name, ElementType type, Object... dims) {
        List<Dim> list = new ArrayList<>();
        for (Object d : dims) {
            list.add(d instanceof String s ? Dim.symbolic(s) : Dim.fixed(((Number) d).longValue()));
        }
        return new TensorSignature(name, type, list);
    }

    private static GraphSignature g(List<TensorSignature> in, List<TensorSignature> out) {
        return new GraphSignature(Path.of("g.onnx"), in, out);
    }

    /** Signatures as docs/bundle-format.md §8 documents them, with the engine's fused convention. */
    public static Map<String, GraphSignature> documented() {
        Map<String, GraphSignature> m = new LinkedHashMap<>();
        m.put(
                "text_encoder",
                g(
                        List.of(
                                t("input_ids", ElementType.INT64, "batch", "text_seq"),
                                t("attention_mask", ElementType.INT64, "batch", "text_seq")),
                        List.of(t("ctx", H, "batch", "text_seq", 7680))));
        List<TensorSignature> common = List.of(
                t("x", H, 1, "image_seq", 128),
                t("x_ids", F, 1, "image_seq", 4),
                t("ctx", H, 1, 512, 7680),
                t("ctx_ids", F, 1, 512, 4));
        List<TensorSignature> transformerIn = new ArrayList<>(common);
        transformerIn.add(2, t("timesteps", H, 1));
        m.put("transformer", g(transformerIn, List.of(t("pred", H, 1, "image_seq", 128))));
        m.put(
                "vae_decoder_pre",
                g(
                        List.of(t("z", H, 1, 128, "latent_height", "latent_width")),
                        List.of(
                                t("/decoder/block_1/Add_output_0", H, 1, 512, "h8", "w8"),
                                t("/decoder/attn_1/Mul_6_output_0", H, 1, 1, "kv_seq", 512),
                                t("/decoder/attn_1/Mul_7_output_0", H, 1, 1, 512, "kv_seq"),
                                t("/decoder/attn_1/Reshape_2_output_0", H, 1, 1, "kv_seq", 512))));
        m.put(
                "vae_decoder_attn_chunk",
                g(
                        List.of(
                                t("q_chunk", H, 1, 1, "chunk_seq", 512),
                                t("kt", H, 1, 1, 512, "kv_seq"),
                                t("v", H, 1, 1, "kv_seq", 512)),
                        List.of(t("attn_chunk", H, 1, 1, "chunk_seq", 512))));
        m.put(
                "vae_decoder_post_stage_0",
                g(
                        List.of(
                                t("/decoder/block_1/Add_output_0", H, 1, 512, "h8", "w8"),
                                t("/decoder/attn_1/MatMul_1_output_0", H, 1, 1, "kv_seq", 512)),
                        List.of(t("/decoder/block.2_2/Add_output_0", H, 1, 256, "h2", "w2"))));
        m.put(
                "vae_decoder_post_stage_1",
                g(
                        List.of(t("/decoder/block.2_2/Add_output_0", H, 1, 256, "h2", "w2")),
                        List.of(t("/decoder/block.0_3/Add_output_0", H, 1, 128, "height", "width"))));
        m.put(
                "vae_decoder_post_stage_2",
                g(
                        List.of(t("/decoder/block.0_3/Add_output_0", H, 1, 128, "height", "width")),
                        List.of(t("/decoder/block.2_3/Add_output_0", H, 1, 128, "height", "width"))));
        m.put(
                "vae_decoder_post_stage_3",
                g(
                        List.of(t("/decoder/block.2_3/Add_output_0", H, 1, 128, "height", "width")),
                        List.of(t("image", H, 1, 3, "height", "width"))));
        List<TensorSignature> fusedIn = new ArrayList<>(common);
        for (int i = 0; i < 4; i++) {
            fusedIn.add(t("timestep_" + i, H, 1));
            fusedIn.add(t("dt_" + i, F, 1));
        }
        m.put("transformer_fused_4step", g(fusedIn, List.of(t("latent", H, 1, "image_seq", 128))));
        m.put(
                "vae_encoder",
                g(
                        List.of(t("image", H, 1, 3, "height", "width")),
                        List.of(t("z", H, 1, 128, "latent_height", "latent_width"))));
        return m;
    }

    private static Map<String, GraphSignature> with(String key, GraphSignature s) {
        Map<String, GraphSignature> m = documented();
        m.put(key, s);
        return m;
    }

    private static GraphSignature replaceInput(String key, String name, TensorSignature replacement) {
        GraphSignature s = documented().get(key);
        List<TensorSignature> in = new ArrayList<>(s.inputs());
        in.replaceAll(x -> x.name().equals(name) ? replacement : x);
        return g(in, s.outputs());
    }

    /** @return the input of post stage {@code stage} that the given kind of producer feeds */
    static String feedOf(VaeDecoderIo decoder, int stage, VaeDecoderIo.SourceKind kind) {
        return decoder.post().get(stage).feeds().stream()
                .filter(f -> f.source().kind() == kind)
                .findFirst()
                .orElseThrow()
                .input()
                .name();
    }

    private String failure(BundleConfig c, Map<String, GraphSignature> signatures) {
        return assertThrows(ModelLoadException.class, () -> GraphContracts.check(c, signatures))
                .getMessage();
    }

    @Test
    void documentedSignaturesPass() {
        BundleIo io = GraphContracts.check(config(n -> {}), documented());
        assertEquals("x", io.transformer().inputs().x().name());
        assertEquals(H, io.transformer().timesteps().elementType());
        assertEquals("pred", io.transformer().pred().name());
        assertEquals("ctx", io.textEncoder().ctx().name());
        VaeDecoderIo decoder = io.splitDecoder().orElseThrow();
        assertEquals("/decoder/block_1/Add_output_0", decoder.residual().name());
        assertEquals("/decoder/attn_1/Mul_6_output_0", decoder.q().name());
        assertEquals("/decoder/attn_1/Mul_7_output_0", decoder.kt().name());
        assertEquals(-1, decoder.attention().fixedChunkRows());
        assertEquals(4, decoder.post().size());
        assertEquals("/decoder/block_1/Add_output_0", feedOf(decoder, 0, VaeDecoderIo.SourceKind.RESIDUAL));
        assertEquals("/decoder/attn_1/MatMul_1_output_0", feedOf(decoder, 0, VaeDecoderIo.SourceKind.ATTENTION));
        assertEquals("/decoder/block.2_2/Add_output_0", feedOf(decoder, 1, VaeDecoderIo.SourceKind.STAGE));
        assertEquals(0, decoder.post().get(1).feeds().get(0).source().stage());
        assertEquals("image", decoder.post().get(3).outputs().get(0).name());
        assertEquals(FusedConvention.ENGINE, io.fusedConvention());
        assertEquals(F, io.fused().orElseThrow().dtInputs().get(0).elementType());
        assertTrue(io.vaeEncoder().isPresent());
    }

    @Test
    void renamedInputNamesGraphTensorAndWhatWasFound() {
        String msg = failure(
                config(n -> {}),
                with("transformer", replaceInput("transformer", "x", t("x_in", H, 1, "image_seq", 128))));
        assertTrue(msg.startsWith("graph transformer (flux2-klein-4b-transformer-q4.onnx)"), msg);
        assertTrue(msg.contains("'x'") && msg.contains("x or hidden_states") && msg.contains("x_in"), msg);
    }

    @Test
    void unsupportedDtypeNamesGraphTensorExpectedSetAndFound() {
        String msg = failure(
                config(n -> {}),
                with(
                        "transformer",
                        replaceInput("transformer", "x_ids", t("x_ids", ElementType.STRING, 1, "image_seq", 4))));
        assertTrue(
                msg.contains("graph transformer")
                        && msg.contains("'x_ids'")
                        && msg.contains("must be DOUBLE or FLOAT or FLOAT16 or INT32 or INT64 of rank 3")
                        && msg.contains("found STRING [1, image_seq, 4]"),
                msg);
        msg = failure(
                config(n -> {}),
                with("transformer", replaceInput("transformer", "x", t("x", ElementType.INT8, 1, "image_seq", 128))));
        assertTrue(
                msg.contains("'x'")
                        && msg.contains("BFLOAT16 or DOUBLE or FLOAT or FLOAT16")
                        && msg.contains("found INT8"),
                msg);
    }

    @Test
    void elementTypesComeFromTheGraphNotTheConfig() {
        // The config says fp16 activations; the graph takes fp32 x, σ and ctx, int64 ids, and returns fp32.
        GraphSignature s = documented().get("transformer");
        List<TensorSignature> in = new ArrayList<>();
        for (TensorSignature x : s.inputs()) {
            ElementType type = x.elementType() == H ? F : ElementType.INT64;
            in.add(new TensorSignature(x.name(), type, x.dims()));
        }
        TensorSignature pred = s.outputs().get(0);
        BundleIo io = GraphContracts.check(
                config(n -> {}), with("transformer", g(in, List.of(new TensorSignature(pred.name(), F, pred.dims())))));
        assertEquals(F, io.transformer().inputs().x().elementType());
        assertEquals(F, io.transformer().timesteps().elementType());
        assertEquals(F, io.transformer().inputs().ctx().elementType());
        assertEquals(ElementType.INT64, io.transformer().inputs().xIds().elementType());
        assertEquals(F, io.transformer().pred().elementType());
        assertEquals(H, io.textEncoder().ctx().elementType(), "the text encoder keeps fp16; the denoiser converts");
        // activation_dtype fp32 with an fp16 graph: the graph wins as well.
        BundleIo fp32Config = GraphContracts.check(
                config(n -> ((ObjectNode) n.get("models").get("transformer")).put("activation_dtype", "fp32")),
                documented());
        assertEquals(H, fp32Config.transformer().inputs().x().elementType());
    }

    @Test
    void idsWithoutBatchDimensionAndScalarSigmaAreAccepted() {
        Map<String, GraphSignature> m = with(
                "transformer", replaceInput("transformer", "x_ids", t("x_ids", ElementType.INT64, "image_seq", 4)));
        GraphSignature s = m.get("transformer");
        List<TensorSignature> in = new ArrayList<>(s.inputs());
        in.replaceAll(x -> x.name().equals("timesteps") ? t("timesteps", F) : x);
        m.put("transformer", g(in, s.outputs()));
        BundleIo io = GraphContracts.check(config(n -> {}), m);
        assertEquals(2, io.transformer().inputs().xIds().rank());
        assertEquals(0, io.transformer().timesteps().rank());
    }

    @Test
    void wrongRankAndFixedSizeAreErrors() {
        String msg = failure(
                config(n -> {}),
                with("transformer", replaceInput("transformer", "timesteps", t("timesteps", H, 1, 1))));
        assertTrue(msg.contains("'timesteps'") && msg.contains("rank 0 or 1 [1]") && msg.contains("[1, 1]"), msg);
        msg = failure(
                config(n -> {}), with("transformer", replaceInput("transformer", "timesteps", t("timesteps", H, 2))));
        assertTrue(msg.contains("'timesteps'") && msg.contains("found FLOAT16 [2]"), msg);
        msg = failure(
                config(n -> {}),
                with("text_encoder", g(documented().get("text_encoder").inputs(), List.of(t("ctx", H, 1, 512, 4096)))));
        assertTrue(msg.contains("graph text_encoder") && msg.contains("[1, 512, 7680]") && msg.contains("4096"), msg);
    }

    @Test
    void textSequenceLengthMustMatchAFixedGraphDimension() {
        String msg = failure(config(n -> n.put("text_seq_len", 256)), documented());
        assertTrue(msg.contains("graph transformer") && msg.contains("'ctx'") && msg.contains("[1, 256, 7680]"), msg);
    }

    @Test
    void anUnfedExtraInputIsAnError() {
        GraphSignature s = documented().get("vae_decoder_pre");
        List<TensorSignature> in = new ArrayList<>(s.inputs());
        in.add(t("scale", F, 1));
        String msg = failure(
                config(n -> ((ObjectNode) n.get("models").get("vae_decoder_pre")).remove("inputs")),
                with("vae_decoder_pre", g(in, s.outputs())));
        assertTrue(msg.contains("graph vae_decoder_pre") && msg.contains("[scale]"), msg);
    }

    @Test
    void vaeStagesMayDeclareDifferentFloatTypes() {
        GraphSignature s = documented().get("vae_decoder_post_stage_2");
        BundleIo io = GraphContracts.check(
                config(n -> {}),
                with(
                        "vae_decoder_post_stage_2",
                        g(List.of(t("/decoder/block.0_3/Add_output_0", F, 1, 128, "height", "width")), s.outputs())));
        VaeDecoderIo.Feed feed =
                io.splitDecoder().orElseThrow().post().get(2).feeds().get(0);
        assertEquals(F, feed.input().elementType());
        assertEquals(H, feed.source().type(), "the chain converts the fp16 stage 1 output");
        String msg = failure(
                config(n -> {}),
                with(
                        "vae_decoder_post_stage_2",
                        g(
                                List.of(t(
                                        "/decoder/block.0_3/Add_output_0",
                                        ElementType.BOOL,
                                        1,
                                        128,
                                        "height",
                                        "width")),
                                s.outputs())));
        assertTrue(
                msg.contains("graph vae_decoder_post_stage_2")
                        && msg.contains("found BOOL")
                        && msg.contains("post stage 1"),
                msg);
    }

    @Test
    void residualAndAttentionInputsCanBeNamedInTheConfig() {
        BundleConfig c = config(n -> {
            ObjectNode stage = (ObjectNode) n.get("models").get("vae_decoder_post_stage_0");
            stage.put("residual_input", "/decoder/block_1/Add_output_0");
            stage.put("attn_input", "/decoder/attn_1/MatMul_1_output_0");
            stage.putArray("inputs").add("/decoder/attn_1/MatMul_1_output_0").add("/decoder/block_1/Add_output_0");
        });
        BundleIo io = GraphContracts.check(c, documented());
        assertEquals(
                "/decoder/attn_1/MatMul_1_output_0",
                feedOf(io.splitDecoder().orElseThrow(), 0, VaeDecoderIo.SourceKind.ATTENTION));
    }

    @Test
    void listedFusedConventionNeedsAFixedLength() {
        GraphSignature engine = documented().get("transformer_fused_4step");
        List<TensorSignature> in = new ArrayList<>(engine.inputs().subList(0, 4));
        in.add(t("timesteps", H, 4));
        BundleIo listed =
                GraphContracts.check(config(n -> {}), with("transformer_fused_4step", g(in, engine.outputs())));
        assertEquals(FusedConvention.LISTED, listed.fusedConvention());
        in.set(4, t("timesteps", H, 5));
        assertEquals(
                FusedConvention.LISTED,
                GraphContracts.check(config(n -> {}), with("transformer_fused_4step", g(in, engine.outputs())))
                        .fusedConvention());
        in.set(4, t("timesteps", H, "n"));
        BundleIo ambiguous =
                GraphContracts.check(config(n -> {}), with("transformer_fused_4step", g(in, engine.outputs())));
        assertEquals(FusedConvention.NONE, ambiguous.fusedConvention());
        String why = ambiguous.fused().orElseThrow().detail();
        assertTrue(
                why.contains("flux2-klein-4b-transformer-q4-fused-4step.onnx")
                        && why.contains("ambiguous")
                        && why.contains("timesteps"),
                why);
    }

    @Test
    void unknownFusedInputsMakeItUnusableWithTheInputsNamed() {
        GraphSignature engine = documented().get("transformer_fused_4step");
        List<TensorSignature> in = new ArrayList<>(engine.inputs().subList(0, 4));
        in.add(t("sigma_schedule", F, 4));
        BundleIo io = GraphContracts.check(config(n -> {}), with("transformer_fused_4step", g(in, engine.outputs())));
        assertFalse(io.fused().orElseThrow().usable());
        String why = io.fused().orElseThrow().detail();
        assertTrue(why.contains("sigma_schedule") && why.contains("neither"), why);
    }

    @Test
    void bundleWithoutOptionalGraphsPasses() {
        BundleConfig c = config(n -> {
            ((ObjectNode) n.get("models")).remove("transformer_fused_4step");
            ((ObjectNode) n.get("models")).remove("vae_encoder");
        });
        Map<String, GraphSignature> m = documented();
        m.remove("transformer_fused_4step");
        m.remove("vae_encoder");
        BundleIo io = GraphContracts.check(c, m);
        assertTrue(io.fused().isEmpty() && io.vaeEncoder().isEmpty());
        assertEquals(FusedConvention.NONE, io.fusedConvention());
    }

    @Test
    void extraOutputsAreAllowedAndStaleDeclaredNamesYieldToTheGraph() {
        GraphSignature text = documented().get("text_encoder");
        List<TensorSignature> outputs = new ArrayList<>(text.outputs());
        outputs.add(t("hidden_states_27", H, 1, 512, 2560));
        GraphContracts.check(config(n -> {}), with("text_encoder", g(text.inputs(), outputs)));
        // The config declares ctx, the graph calls it prompt_embeds (hlhc's name): the graph is authoritative.
        BundleIo io = GraphContracts.check(
                config(n -> {}), with("text_encoder", g(text.inputs(), List.of(t("prompt_embeds", H, 1, 512, 7680)))));
        assertEquals("prompt_embeds", io.textEncoder().ctx().name());
        String msg = failure(
                config(n -> {}), with("text_encoder", g(text.inputs(), List.of(t("prompt_embeds", H, 1, 512, 2560)))));
        assertTrue(
                msg.contains("graph text_encoder") && msg.contains("'prompt_embeds'") && msg.contains("[1, 512, 7680]"),
                msg);
    }

    private static GraphSignature fusedWith(List<TensorSignature> schedule) {
        GraphSignature engine = documented().get("transformer_fused_4step");
        List<TensorSignature> in = new ArrayList<>(engine.inputs().subList(0, 4));
        in.addAll(schedule);
        return g(in, engine.outputs());
    }

    private static List<TensorSignature> engineSchedule(int steps) {
        List<TensorSignature> list = new ArrayList<>();
        for (int i = 0; i < steps; i++) {
            list.add(t("timestep_" + i, F, 1));
            list.add(t("dt_" + i, H, 1));
        }
        return list;
    }

    private BundleConfig withoutFusedSteps() {
        return config(n -> ((ObjectNode) n.get("models").get("transformer_fused_4step")).remove("fused_steps"));
    }

    @Test
    void engineStepCountComesFromTheGraphAndMustAgreeWithFusedSteps() {
        BundleIo three = GraphContracts.check(
                withoutFusedSteps(), with("transformer_fused_4step", fusedWith(engineSchedule(3))));
        assertEquals(FusedConvention.ENGINE, three.fusedConvention());
        assertEquals(3, three.fused().orElseThrow().steps());
        assertEquals(F, three.fused().orElseThrow().timestepInputs().get(0).elementType(), "dtypes from the graph");
        assertEquals(H, three.fused().orElseThrow().dtInputs().get(2).elementType());
        // The seed config says fused_steps 4: a 3-step graph contradicts it.
        FusedIo disagree = GraphContracts.check(
                        config(n -> {}), with("transformer_fused_4step", fusedWith(engineSchedule(3))))
                .fused()
                .orElseThrow();
        assertFalse(disagree.usable());
        assertTrue(disagree.detail().contains("fused_steps is 4 but the graph takes 3"), disagree.detail());
        List<TensorSignature> gap = new ArrayList<>(engineSchedule(4));
        gap.removeIf(x -> x.name().equals("timestep_2"));
        FusedIo holes = GraphContracts.check(config(n -> {}), with("transformer_fused_4step", fusedWith(gap)))
                .fused()
                .orElseThrow();
        assertFalse(holes.usable());
        assertTrue(holes.detail().contains("same k") && holes.detail().contains("dt_2"), holes.detail());
        List<TensorSignature> wide = engineSchedule(4);
        wide.set(0, t("timestep_0", F, 2));
        FusedIo notSingle = GraphContracts.check(config(n -> {}), with("transformer_fused_4step", fusedWith(wide)))
                .fused()
                .orElseThrow();
        assertFalse(notSingle.usable());
        assertTrue(
                notSingle.detail().contains("timestep_0") && notSingle.detail().contains("rank 0 or 1"),
                notSingle.detail());
    }

    @Test
    void listedScheduleShapesThatAreAmbiguousMakeTheFusedGraphUnusable() {
        for (TensorSignature bad : List.of(
                t("timesteps", H, 1),
                t("timesteps", H),
                t("timesteps", H, 2, 2),
                t("timesteps", H, "steps"),
                t("timesteps", ElementType.INT64, 4))) {
            FusedIo io = GraphContracts.check(config(n -> {}), with("transformer_fused_4step", fusedWith(List.of(bad))))
                    .fused()
                    .orElseThrow();
            assertFalse(io.usable(), bad.toString());
            assertTrue(io.detail().contains("ambiguous") && io.detail().contains("[4]"), io.detail());
        }
        FusedIo batched = GraphContracts.check(
                        config(n -> {}), with("transformer_fused_4step", fusedWith(List.of(t("timesteps", F, 1, 4)))))
                .fused()
                .orElseThrow();
        assertEquals(FusedConvention.LISTED, batched.convention(), "[1, 4] holds exactly sigma_0..3");
        FusedIo five = GraphContracts.check(
                        config(n ->
                                ((ObjectNode) n.get("models").get("transformer_fused_4step")).put("fused_steps", 2)),
                        with("transformer_fused_4step", fusedWith(List.of(t("timesteps", H, 3)))))
                .fused()
                .orElseThrow();
        assertEquals(2, five.steps(), "fused_steps 2 with [3]: sigma_0..2 including the final 0");
    }

    private BundleConfig unifiedConfig() {
        return config(n -> {
            ObjectNode models = (ObjectNode) n.get("models");
            models.remove(List.of(
                    "vae_decoder_pre",
                    "vae_decoder_attn_chunk",
                    "vae_decoder_post_stage_0",
                    "vae_decoder_post_stage_1",
                    "vae_decoder_post_stage_2",
                    "vae_decoder_post_stage_3"));
            n.remove("vae_decoder_post_stage_keys");
            models.putObject("vae_decoder").put("file", "vae.onnx");
        });
    }

    private static Map<String, GraphSignature> unifiedSignatures(GraphSignature decoder) {
        Map<String, GraphSignature> m = documented();
        m.keySet().removeIf(k -> k.startsWith("vae_decoder"));
        m.put("vae_decoder", decoder);
        return m;
    }

    @Test
    void unifiedDecoderResolvesHlhcStyleNames() {
        BundleIo io = GraphContracts.check(
                unifiedConfig(),
                unifiedSignatures(
                        g(List.of(t("latents", F, 1, 128, "h", "w")), List.of(t("sample", F, 1, 3, "H", "W")))));
        UnifiedDecoderIo decoder = (UnifiedDecoderIo) io.decoder();
        assertEquals("latents", decoder.z().name());
        assertEquals("sample", decoder.image().name());
        assertTrue(io.splitDecoder().isEmpty());
        assertEquals(List.of("vae_decoder"), decoder.graphKeys());
        String msg = failure(
                unifiedConfig(),
                unifiedSignatures(
                        g(List.of(t("latents", F, 1, 128, "h", "w")), List.of(t("sample", F, 1, 4, "H", "W")))));
        assertTrue(msg.contains("graph vae_decoder") && msg.contains("'sample'") && msg.contains("[1, 3, ?, ?]"), msg);
        msg = failure(
                unifiedConfig(),
                unifiedSignatures(g(
                        List.of(t("latents", F, 1, 128, "h", "w"), t("scale", F, 1)),
                        List.of(t("image", F, 1, 3, "H", "W")))));
        assertTrue(msg.contains("graph vae_decoder") && msg.contains("[scale]"), msg);
    }

    @Test
    void preOutputsAndStageZeroInputsAreMatchedByName() {
        GraphSignature pre = documented().get("vae_decoder_pre");
        List<TensorSignature> outs = new ArrayList<>(pre.outputs());
        java.util.Collections.reverse(outs);
        GraphSignature stage0 = documented().get("vae_decoder_post_stage_0");
        List<TensorSignature> ins = new ArrayList<>(stage0.inputs());
        java.util.Collections.reverse(ins);
        Map<String, GraphSignature> m = with("vae_decoder_pre", g(pre.inputs(), outs));
        m.put("vae_decoder_post_stage_0", g(ins, stage0.outputs()));
        // Stale positional lists in the config are dropped in favour of the graphs' names.
        BundleConfig c = config(n -> {
            ((ObjectNode) n.get("models").get("vae_decoder_pre")).remove("outputs");
            ((ObjectNode) n.get("models").get("vae_decoder_post_stage_0")).remove("inputs");
        });
        VaeDecoderIo decoder = GraphContracts.check(c, m).splitDecoder().orElseThrow();
        assertEquals("/decoder/block_1/Add_output_0", decoder.residual().name());
        assertEquals("/decoder/attn_1/Mul_6_output_0", decoder.q().name());
        assertEquals("/decoder/attn_1/Reshape_2_output_0", decoder.v().name());
        assertEquals("/decoder/block_1/Add_output_0", feedOf(decoder, 0, VaeDecoderIo.SourceKind.RESIDUAL));
        assertEquals("/decoder/attn_1/MatMul_1_output_0", feedOf(decoder, 0, VaeDecoderIo.SourceKind.ATTENTION));
    }

    @Test
    void unnamedStageZeroInputsFallBackToTheAttentionLikeNameThenToPositions() {
        GraphSignature stage0 = documented().get("vae_decoder_post_stage_0");
        BundleConfig c = config(n -> ((ObjectNode) n.get("models").get("vae_decoder_post_stage_0")).remove("inputs"));
        Map<String, GraphSignature> m = with(
                "vae_decoder_post_stage_0",
                g(List.of(t("attn_out", H, 1, 1, "kv_seq", 512), t("res", H, 1, 512, "h8", "w8")), stage0.outputs()));
        VaeDecoderIo decoder = GraphContracts.check(c, m).splitDecoder().orElseThrow();
        assertEquals("attn_out", feedOf(decoder, 0, VaeDecoderIo.SourceKind.ATTENTION));
        assertEquals("res", feedOf(decoder, 0, VaeDecoderIo.SourceKind.RESIDUAL));
        m.put(
                "vae_decoder_post_stage_0",
                g(List.of(t("a", H, 1, 512, "h8", "w8"), t("b", H, 1, 1, "kv_seq", 512)), stage0.outputs()));
        decoder = GraphContracts.check(c, m).splitDecoder().orElseThrow();
        assertEquals("a", feedOf(decoder, 0, VaeDecoderIo.SourceKind.RESIDUAL), "positional: residual first");
        m.put(
                "vae_decoder_post_stage_0",
                g(
                        List.of(t("a", H, 1, 512, "h8", "w8"), t("b", H, 1, 1, "kv_seq", 512), t("c", H, 1)),
                        stage0.outputs()));
        String msg = failure(c, m);
        assertTrue(
                msg.contains("graph vae_decoder_post_stage_0")
                        && msg.contains("exactly two inputs")
                        && msg.contains("residual_input"),
                msg);
    }

    @Test
    void laterStagesMayReadAnyEarlierTensorByName() {
        // Stage 2 also takes the residual (by its name) next to stage 1's output.
        GraphSignature stage2 = documented().get("vae_decoder_post_stage_2");
        List<TensorSignature> ins = new ArrayList<>(stage2.inputs());
        ins.add(t("/decoder/block_1/Add_output_0", F, 1, 512, "h8", "w8"));
        BundleConfig c = config(n -> ((ObjectNode) n.get("models").get("vae_decoder_post_stage_2")).remove("inputs"));
        VaeDecoderIo decoder = GraphContracts.check(c, with("vae_decoder_post_stage_2", g(ins, stage2.outputs())))
                .splitDecoder()
                .orElseThrow();
        assertEquals(2, decoder.post().get(2).feeds().size());
        assertEquals("/decoder/block_1/Add_output_0", feedOf(decoder, 2, VaeDecoderIo.SourceKind.RESIDUAL));
        assertEquals(
                H,
                decoder.post().get(2).feeds().stream()
                        .filter(f -> f.source().kind() == VaeDecoderIo.SourceKind.RESIDUAL)
                        .findFirst()
                        .orElseThrow()
                        .source()
                        .type(),
                "converted to F");
        ins.add(t("mystery", H, 1));
        String msg = failure(c, with("vae_decoder_post_stage_2", g(ins, stage2.outputs())));
        assertTrue(msg.contains("graph vae_decoder_post_stage_2") && msg.contains("mystery"), msg);
    }

    @Test
    void textEncoderWithInt32IdsPositionIdsAndNoMask() {
        BundleConfig c = config(n -> ((ObjectNode) n.get("models").get("text_encoder")).remove("inputs"));
        BundleIo io = GraphContracts.check(
                c,
                with(
                        "text_encoder",
                        g(
                                List.of(
                                        t("input_ids", ElementType.INT32, 1, 512),
                                        t("position_ids", ElementType.INT64, 1, 512)),
                                List.of(t("prompt_embeds", F, 1, 512, 7680)))));
        assertEquals(ElementType.INT32, io.textEncoder().inputIds().elementType());
        assertTrue(io.textEncoder().attentionMask().isEmpty());
        assertEquals(
                "position_ids", io.textEncoder().positionIds().orElseThrow().name());
        assertEquals(F, io.textEncoder().ctx().elementType());
    }

    @Test
    void inputsWithoutDeclaredShapeAreCheckedByTypeOnly() {
        Map<String, GraphSignature> m = with(
                "transformer",
                replaceInput("transformer", "timesteps", new TensorSignature("timesteps", F, List.of(), false)));
        GraphSignature s = m.get("transformer");
        List<TensorSignature> in = new ArrayList<>(s.inputs());
        in.replaceAll(x -> x.name().equals("x") ? new TensorSignature("x", H, List.of(), false) : x);
        m.put("transformer", g(in, s.outputs()));
        BundleIo io = GraphContracts.check(config(n -> {}), m);
        assertFalse(io.transformer().timesteps().rankKnown());
        in.replaceAll(x -> x.name().equals("x") ? new TensorSignature("x", ElementType.STRING, List.of(), false) : x);
        m.put("transformer", g(in, s.outputs()));
        String msg = failure(config(n -> {}), m);
        assertTrue(msg.contains("'x'") && msg.contains("found STRING [unknown rank]"), msg);
    }
}
