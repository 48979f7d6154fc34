package dev.flux2.onnx.bundle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Roles and families recognised from signatures alone: the documented MarkShark2 graphs, hlhc's card, the rest. */
class GraphClassifierTest {
    private static final ElementType F = ElementType.FLOAT;
    private static final ElementType I = ElementType.INT64;

    private static TensorSignature t(String name, ElementType type, Object... dims) {
        List<Dim> list = new ArrayList<>();
        for (Object d : dims) {
            list.add(d instanceof String s ? new Dim(-1, s) : Dim.fixed(((Number) d).longValue()));
        }
        return new TensorSignature(name, type, list);
    }

    private static GraphSignature g(List<TensorSignature> in, List<TensorSignature> out) {
        return new GraphSignature(Path.of("/m/g.onnx"), in, out);
    }

    private static String what(GraphSignature s) {
        GraphClassification c = GraphClassifier.classify(s);
        return c.role().map(GraphKind::name).orElse("NONE") + "/" + c.family().name();
    }

    @Test
    void markShark2GraphsAsDocumented() {
        Map<String, GraphSignature> d = GraphContractsTest.documented();
        assertEquals("TEXT_ENCODER/MARKSHARK2", what(d.get("text_encoder")));
        assertEquals("DENOISER/MARKSHARK2", what(d.get("transformer")));
        assertEquals("FUSED_DENOISER/MARKSHARK2", what(d.get("transformer_fused_4step")));
        assertEquals("VAE_ENCODER/MARKSHARK2", what(d.get("vae_encoder")));
        for (String split : List.of(
                "vae_decoder_pre",
                "vae_decoder_attn_chunk",
                "vae_decoder_post_stage_0",
                "vae_decoder_post_stage_1",
                "vae_decoder_post_stage_3")) {
            GraphClassification c = GraphClassifier.classify(d.get(split));
            assertEquals(Optional.empty(), c.role(), split);
            assertTrue(c.note().contains("split VAE decoder") || c.note().contains("match no known"), c.note());
        }
    }

    @Test
    void hlhcGraphsAsItsCardDescribesThem() {
        assertEquals(
                "TEXT_ENCODER/HLHC",
                what(g(
                        List.of(t("input_ids", I, 1, 512), t("attention_mask", I, 1, 512)),
                        List.of(t("prompt_embeds", F, 1, 512, 7680)))));
        assertEquals(
                "DENOISER/HLHC",
                what(g(
                        List.of(
                                t("hidden_states", F, 1, "S", 128),
                                t("encoder_hidden_states", F, 1, 512, 7680),
                                t("timestep", F, 1),
                                t("img_ids", I, 1, "S", 4),
                                t("txt_ids", I, 1, 512, 4)),
                        List.of(t("noise_pred", F, 1, "S", 128)))));
        assertEquals(
                "VAE_ENCODER/HLHC",
                what(g(List.of(t("image", F, 1, 3, "H", "W")), List.of(t("latents", F, 1, 128, "h", "w")))));
        assertEquals(
                "VAE_DECODER/HLHC",
                what(g(List.of(t("latents", F, 1, 128, "h", "w")), List.of(t("image", F, 1, 3, "H", "W")))));
    }

    @Test
    void diffusersNamesAndSymbolicChannelsAreTheOtherFamily() {
        assertEquals(
                "VAE_DECODER/OTHER",
                what(g(
                        List.of(t("latent_sample", F, "b", "c", "h", "w")),
                        List.of(t("sample", F, "b", "c", "H", "W")))));
        assertEquals(
                "VAE_ENCODER/OTHER",
                what(g(List.of(t("sample", F, "b", 3, "H", "W")), List.of(t("latent", F, "b", 128, "h", "w")))));
    }

    @Test
    void aLatentOfAnotherChannelCountOrAnImageOfAnotherIsNoVaeDecoder() {
        GraphClassification raw = GraphClassifier.classify(
                g(List.of(t("z", F, 1, 32, "h", "w")), List.of(t("image", F, 1, 3, "H", "W"))));
        assertEquals(Optional.empty(), raw.role());
        assertTrue(raw.note().contains("latent of 32 channels"), raw.note());
        assertEquals(
                "NONE/OTHER",
                what(g(List.of(t("latents", F, 1, 128, "h", "w")), List.of(t("image", F, 1, 4, "H", "W")))));
    }

    @Test
    void aTimestepListOfFixedLengthMakesAFusedDenoiser() {
        List<TensorSignature> in = List.of(
                t("x", F, 1, "S", 128),
                t("x_ids", F, 1, "S", 4),
                t("timesteps", F, 4),
                t("ctx", F, 1, 512, 7680),
                t("ctx_ids", F, 1, 512, 4));
        assertEquals("FUSED_DENOISER/MARKSHARK2", what(g(in, List.of(t("latent", F, 1, "S", 128)))));
        List<TensorSignature> perStep = new ArrayList<>(in);
        perStep.set(2, t("timesteps", F, "batch"));
        assertEquals("DENOISER/MARKSHARK2", what(g(perStep, List.of(t("pred", F, 1, "S", 128)))));
    }

    @Test
    void aTextEncoderTakesOnlyIntegerTokensAndADenoiserAllFourInputs() {
        assertEquals(
                "NONE/OTHER",
                what(g(
                        List.of(t("input_ids", I, 1, 512), t("inputs_embeds", F, 1, 512, 2560)),
                        List.of(t("prompt_embeds", F, 1, 512, 7680)))),
                "an embeddings input is not fed by this pipeline");
        assertEquals(
                "NONE/OTHER",
                what(g(
                        List.of(t("hidden_states", F, 1, "S", 128), t("timestep", F, 1), t("img_ids", I, "S", 4)),
                        List.of(t("noise_pred", F, 1, "S", 128)))),
                "no text context");
    }
}
