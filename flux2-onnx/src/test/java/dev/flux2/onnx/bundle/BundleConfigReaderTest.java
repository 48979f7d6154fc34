package dev.flux2.onnx.bundle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flux2.api.ModelLoadException;
import dev.flux2.onnx.SeedConfigFiles;
import dev.flux2.onnx.options.OptimizationLevel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BundleConfigReaderTest {
    @TempDir
    Path dir;

    private BundleConfig read(Consumer<ObjectNode> edit) {
        ObjectNode config = SeedConfigFiles.seedConfig();
        edit.accept(config);
        return BundleConfigReader.read(SeedConfigFiles.write(config, dir.resolve(BundleConfigReader.FILE_NAME)));
    }

    private String failure(Consumer<ObjectNode> edit) {
        return assertThrows(ModelLoadException.class, () -> read(edit)).getMessage();
    }

    @Test
    void readsTheSeedConfig() {
        BundleConfig c = read(n -> {});
        assertEquals(512, c.text().sequenceLength());
        assertEquals(7680, c.text().contextDim());
        assertEquals("tokenizer", c.text().tokenizerDir());
        assertEquals(0f, c.text().contextClip());
        assertEquals("klein-4b-distilled-onnx-webgpu-q4", c.defaults().variant());
        assertTrue(c.defaults().distilled());
        assertEquals(4, c.defaults().numSteps());
        assertEquals(1.0f, c.defaults().guidance());
        assertEquals(256, c.defaults().width());
        assertEquals(
                List.of(
                        "vae_decoder_post_stage_0",
                        "vae_decoder_post_stage_1",
                        "vae_decoder_post_stage_2",
                        "vae_decoder_post_stage_3"),
                c.decoder().postKeys());
        assertFalse(c.decoder().unified());
        assertEquals(
                List.of(
                        "text_encoder",
                        "transformer",
                        "transformer_fused_4step",
                        "vae_decoder_pre",
                        "vae_decoder_attn_chunk",
                        "vae_decoder_post_stage_0",
                        "vae_decoder_post_stage_1",
                        "vae_decoder_post_stage_2",
                        "vae_decoder_post_stage_3",
                        "vae_encoder"),
                c.usedModelKeys());
        assertEquals(List.of(), c.ignoredModelKeys());
        ModelEntry transformer = c.requiredModel(GraphKeys.TRANSFORMER);
        assertEquals("flux2-klein-4b-transformer-q4.onnx", transformer.file());
        assertEquals("transformer-q4-manifest.json", transformer.manifest().orElseThrow());
        assertEquals(
                List.of("x", "x_ids", "timesteps", "ctx", "ctx_ids"),
                transformer.names().inputs());
        assertEquals(
                new ShardInfo(2, 2543824896L, 2128121856L, -1),
                transformer.shards().orElseThrow());
        assertEquals(
                "float16-selective-fp32",
                transformer.settings().activationDtype().orElseThrow());
        ModelEntry attn = c.requiredModel(GraphKeys.VAE_DECODER_ATTN_CHUNK);
        assertEquals(1024, attn.settings().chunkSize().orElseThrow());
        assertEquals(512, attn.settings().headDim().orElseThrow());
        assertEquals(480, attn.shards().orElseThrow().onnxBytes());
        assertEquals(
                4, c.fusedTransformer().orElseThrow().settings().fusedSteps().orElseThrow());
        assertTrue(c.supportsImageInput());
    }

    @Test
    void toleratesUnknownFields() {
        BundleConfig c = read(n -> {
            n.put("some_future_field", "x");
            ((ObjectNode) n.get("models").get("transformer"))
                    .putObject("future_block")
                    .put("a", 1);
        });
        assertEquals(512, c.text().sequenceLength());
    }

    @Test
    void nonNumericTextSeqLenNamesTheField() {
        String msg = failure(n -> n.put("text_seq_len", "abc"));
        assertTrue(msg.contains("text_seq_len") && msg.contains("\"abc\"") && msg.contains("positive integer"), msg);
        assertTrue(msg.contains(BundleConfigReader.FILE_NAME), msg);
    }

    @Test
    void missingTransformerNamesTheField() {
        String msg = failure(n -> ((ObjectNode) n.get("models")).remove("transformer"));
        assertTrue(msg.contains("models.transformer") && msg.contains("missing"), msg);
    }

    @Test
    void missingRequiredTopLevelFieldsAreNamed() {
        for (String field : List.of("text_seq_len", "context_dim", "models")) {
            String msg = failure(n -> n.remove(field));
            assertTrue(msg.contains("'" + field + "'") && msg.contains("missing"), field + ": " + msg);
        }
    }

    @Test
    void missingGraphFileIsNamedWithItsPath() {
        String msg = failure(n -> ((ObjectNode) n.get("models").get("vae_decoder_pre")).remove("file"));
        assertTrue(msg.contains("models.vae_decoder_pre.file"), msg);
    }

    @Test
    void postStageKeyWithoutEntryIsAnError() {
        String msg = failure(n -> n.withArray("vae_decoder_post_stage_keys").add("vae_decoder_post_stage_9"));
        assertTrue(
                msg.contains("'vae_decoder_post_stage_keys'")
                        && msg.contains("[vae_decoder_post_stage_9]")
                        && msg.contains("models does not have"),
                msg);
    }

    @Test
    void wrongLatentChannelsIsAnError() {
        String msg = failure(n -> n.put("latent_channels", 64));
        assertTrue(msg.contains("latent_channels") && msg.contains("128") && msg.contains("64"), msg);
    }

    @Test
    void defaultSizeMustBeAMultipleOf16() {
        String msg = failure(n -> n.put("default_width", 250));
        assertTrue(msg.contains("default_width") && msg.contains("250"), msg);
    }

    @Test
    void shardedGraphWithoutManifestIsAccepted() {
        // The graph's own external-data references are checked instead (ExternalDataCheck).
        BundleConfig c = read(n -> ((ObjectNode) n.get("models").get("text_encoder")).remove("manifest"));
        assertTrue(c.requiredModel(GraphKeys.TEXT_ENCODER).manifest().isEmpty());
        assertEquals(
                2,
                c.requiredModel(GraphKeys.TEXT_ENCODER).shards().orElseThrow().count());
    }

    @Test
    void tokenizerDirDefaultsToTokenizer() {
        assertEquals("tokenizer", read(n -> n.remove("tokenizer_dir")).text().tokenizerDir());
        String msg = failure(n -> n.put("tokenizer_dir", "../elsewhere"));
        assertTrue(msg.contains("tokenizer_dir") && msg.contains("inside the bundle"), msg);
    }

    @Test
    void graphOptimizationLevelIsCheckedWhenRead() {
        BundleConfig c = read(n -> {
            ((ObjectNode) n.get("models").get("transformer")).put("graph_optimization_level", "ORT_ENABLE_EXTENDED");
            ((ObjectNode) n.get("models").get("vae_decoder_pre")).put("graph_optimization_level", "disabled");
        });
        assertEquals(
                OptimizationLevel.EXTENDED,
                c.requiredModel(GraphKeys.TRANSFORMER)
                        .settings()
                        .graphOptimizationLevel()
                        .orElseThrow());
        assertEquals(
                OptimizationLevel.DISABLED,
                c.requiredModel(GraphKeys.VAE_DECODER_PRE)
                        .settings()
                        .graphOptimizationLevel()
                        .orElseThrow());
        String msg = failure(
                n -> ((ObjectNode) n.get("models").get("transformer")).put("graph_optimization_level", "fastest"));
        assertTrue(
                msg.contains("models.transformer.graph_optimization_level")
                        && msg.contains("'fastest'")
                        && msg.contains("disabled, basic, extended, layout or all"),
                msg);
    }

    @Test
    void unknownModelEntriesAreIgnoredEvenWhenTheyDoNotParse() {
        BundleConfig c = read(n -> {
            ObjectNode models = (ObjectNode) n.get("models");
            models.putObject("transformer_custom_lowbit").put("base_url", "runtime/custom_lowbit");
            models.putObject("text_encoder_fp16").put("file", "other.onnx");
            models.put("notes", "not an object");
        });
        assertFalse(c.model("transformer_custom_lowbit").isPresent());
        assertEquals(List.of("text_encoder_fp16"), c.ignoredModelKeys());
        String msg = failure(n -> ((ObjectNode) n.get("models").get("vae_encoder")).remove("file"));
        assertTrue(msg.contains("models.vae_encoder.file"), "known keys stay strict: " + msg);
    }

    @Test
    void fileNamesMayNotEscapeTheBundle() {
        String msg = failure(n -> ((ObjectNode) n.get("models").get("transformer")).put("file", "../x.onnx"));
        assertTrue(msg.contains("models.transformer.file") && msg.contains("inside the bundle"), msg);
    }

    @Test
    void inputsMustBeStrings() {
        String msg = failure(n -> ((ObjectNode) n.get("models").get("transformer"))
                .putArray("inputs")
                .add(3));
        assertTrue(msg.contains("models.transformer.inputs"), msg);
    }

    @Test
    void baseVariantGetsBaseDefaultsAndIsDistilledWins() {
        BundleConfig base = read(n -> {
            n.put("model_variant", "klein-4b-base-onnx");
            n.remove("num_steps");
            n.remove("guidance");
        });
        assertFalse(base.defaults().distilled());
        assertEquals(50, base.defaults().numSteps());
        assertEquals(4.0f, base.defaults().guidance());
        BundleConfig forced = read(n -> {
            n.put("model_variant", "klein-4b-base-onnx");
            n.put("is_distilled", true);
        });
        assertTrue(forced.defaults().distilled());
    }

    @Test
    void supportsImg2imgFalseDisablesImageInput() {
        assertFalse(read(n -> n.put("supports_img2img", false)).supportsImageInput());
        assertFalse(
                read(n -> ((ObjectNode) n.get("models")).remove("vae_encoder")).supportsImageInput());
    }

    @Test
    void invalidJsonNamesTheFileAndPosition() throws IOException {
        Path file = Files.writeString(dir.resolve(BundleConfigReader.FILE_NAME), "{\n  \"text_seq_len\": 512,,\n}");
        String msg = assertThrows(ModelLoadException.class, () -> BundleConfigReader.read(file))
                .getMessage();
        assertTrue(msg.contains("not valid JSON") && msg.contains("line 2"), msg);
    }

    @Test
    void missingConfigFileIsNamed() {
        Path file = dir.resolve(BundleConfigReader.FILE_NAME);
        String msg = assertThrows(ModelLoadException.class, () -> BundleConfigReader.read(file))
                .getMessage();
        assertTrue(msg.contains("flux2-config.json not found") && msg.contains(dir.toString()), msg);
    }

    private static void removeSplitDecoder(ObjectNode n) {
        ObjectNode models = (ObjectNode) n.get("models");
        models.remove(List.of(
                "vae_decoder_pre",
                "vae_decoder_attn_chunk",
                "vae_decoder_post_stage_0",
                "vae_decoder_post_stage_1",
                "vae_decoder_post_stage_2",
                "vae_decoder_post_stage_3"));
        n.remove("vae_decoder_post_stage_keys");
    }

    @Test
    void unifiedVaeDecoderNeedsNoSplitKeys() {
        BundleConfig c = read(n -> {
            removeSplitDecoder(n);
            ((ObjectNode) n.get("models")).putObject("vae_decoder").put("file", "vae-decoder.onnx");
        });
        assertTrue(c.decoder().unified());
        assertEquals(List.of("vae_decoder"), c.decoder().graphKeys());
        assertTrue(
                c.usedModelKeys().contains("vae_decoder") && !c.usedModelKeys().contains("vae_decoder_pre"));
    }

    @Test
    void unifiedVaeDecoderWinsOverACompleteSplitChain() {
        BundleConfig c = read(
                n -> ((ObjectNode) n.get("models")).putObject("vae_decoder").put("file", "v.onnx"));
        assertTrue(c.decoder().unified());
        assertTrue(
                c.ignoredModelKeys()
                        .containsAll(List.of("vae_decoder_pre", "vae_decoder_attn_chunk", "vae_decoder_post_stage_3")),
                c.ignoredModelKeys().toString());
    }

    @Test
    void singlePostGraphReplacesTheStageList() {
        BundleConfig c = read(n -> {
            ObjectNode models = (ObjectNode) n.get("models");
            for (int i = 0; i < 4; i++) {
                models.remove("vae_decoder_post_stage_" + i);
            }
            n.remove("vae_decoder_post_stage_keys");
            models.putObject("vae_decoder_post").put("file", "post.onnx");
        });
        assertEquals(List.of("vae_decoder_post"), c.decoder().postKeys());
        assertEquals(
                List.of("vae_decoder_pre", "vae_decoder_attn_chunk", "vae_decoder_post"),
                c.decoder().graphKeys());
        // A stage list none of whose keys exist does not hide the single post graph (the engine's reading).
        BundleConfig listed = read(n -> {
            ObjectNode models = (ObjectNode) n.get("models");
            for (int i = 0; i < 4; i++) {
                models.remove("vae_decoder_post_stage_" + i);
            }
            models.putObject("vae_decoder_post").put("file", "post.onnx");
        });
        assertEquals(List.of("vae_decoder_post"), listed.decoder().postKeys());
    }

    @Test
    void aConfigWithoutACompleteDecoderNamesWhatIsMissing() {
        String msg = failure(n -> ((ObjectNode) n.get("models")).remove("vae_decoder_pre"));
        assertTrue(
                msg.contains("no complete VAE decoder")
                        && msg.contains("models.vae_decoder ")
                        && msg.contains("models.vae_decoder_pre")
                        && msg.contains(BundleConfigReader.FILE_NAME),
                msg);
        msg = failure(n -> {
            n.remove("vae_decoder_post_stage_keys");
            ((ObjectNode) n.get("models")).remove("vae_decoder_attn_chunk");
        });
        assertTrue(
                msg.contains("models.vae_decoder_attn_chunk")
                        && msg.contains("post-attention graphs")
                        && msg.contains("vae_decoder_post_stage_keys or models.vae_decoder_post"),
                msg);
    }
}
