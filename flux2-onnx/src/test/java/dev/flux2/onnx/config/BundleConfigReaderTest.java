package dev.flux2.onnx.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flux2.api.ModelLoadException;
import dev.flux2.onnx.SharedFiles;
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
        ObjectNode config = SharedFiles.seedConfig();
        edit.accept(config);
        return BundleConfigReader.read(SharedFiles.write(config, dir.resolve(BundleConfigReader.FILE_NAME)));
    }

    private String failure(Consumer<ObjectNode> edit) {
        return assertThrows(ModelLoadException.class, () -> read(edit)).getMessage();
    }

    @Test
    void readsTheSeedConfig() {
        BundleConfig c = read(n -> { });
        assertEquals(512, c.text().sequenceLength());
        assertEquals(7680, c.text().contextDim());
        assertEquals("tokenizer", c.text().tokenizerDir());
        assertEquals(0f, c.text().contextClip());
        assertEquals("klein-4b-distilled-onnx-webgpu-q4", c.defaults().variant());
        assertTrue(c.defaults().distilled());
        assertEquals(4, c.defaults().numSteps());
        assertEquals(1.0f, c.defaults().guidance());
        assertEquals(256, c.defaults().width());
        assertEquals(List.of("vae_decoder_post_stage_0", "vae_decoder_post_stage_1", "vae_decoder_post_stage_2",
                "vae_decoder_post_stage_3"), c.vaeDecoderPostStageKeys());
        ModelEntry transformer = c.requiredModel(GraphKeys.TRANSFORMER);
        assertEquals("flux2-klein-4b-transformer-q4.onnx", transformer.file());
        assertEquals("transformer-q4-manifest.json", transformer.manifest().orElseThrow());
        assertEquals(List.of("x", "x_ids", "timesteps", "ctx", "ctx_ids"), transformer.names().inputs());
        assertEquals(new ShardInfo(2, 2543824896L, 2128121856L, -1), transformer.shards().orElseThrow());
        assertFalse(transformer.settings().fp32Activations(), "float16-selective-fp32 is fp16");
        ModelEntry attn = c.requiredModel(GraphKeys.VAE_DECODER_ATTN_CHUNK);
        assertEquals(1024, attn.settings().chunkSize().orElseThrow());
        assertEquals(512, attn.settings().headDim().orElseThrow());
        assertEquals(480, attn.shards().orElseThrow().onnxBytes());
        assertEquals(4, c.fusedTransformer().orElseThrow().settings().fusedSteps().orElseThrow());
        assertTrue(c.supportsImageInput());
    }

    @Test
    void toleratesUnknownFields() {
        BundleConfig c = read(n -> {
            n.put("some_future_field", "x");
            ((ObjectNode) n.get("models").get("transformer")).putObject("future_block").put("a", 1);
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
        for (String field : List.of("text_seq_len", "context_dim", "tokenizer_dir", "models",
                "vae_decoder_post_stage_keys")) {
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
        assertTrue(msg.contains("models.vae_decoder_post_stage_9") && msg.contains("vae_decoder_post_stage_keys"),
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
    void shardedGraphWithoutManifestIsAnError() {
        String msg = failure(n -> ((ObjectNode) n.get("models").get("text_encoder")).remove("manifest"));
        assertTrue(msg.contains("models.text_encoder.manifest") && msg.contains("shards.count is 2"), msg);
    }

    @Test
    void fileNamesMayNotEscapeTheBundle() {
        String msg = failure(n -> ((ObjectNode) n.get("models").get("transformer")).put("file", "../x.onnx"));
        assertTrue(msg.contains("models.transformer.file") && msg.contains("inside the bundle"), msg);
    }

    @Test
    void inputsMustBeStrings() {
        String msg = failure(n -> ((ObjectNode) n.get("models").get("transformer")).putArray("inputs").add(3));
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
        assertFalse(read(n -> ((ObjectNode) n.get("models")).remove("vae_encoder")).supportsImageInput());
    }

    @Test
    void invalidJsonNamesTheFileAndPosition() throws IOException {
        Path file = Files.writeString(dir.resolve(BundleConfigReader.FILE_NAME), "{\n  \"text_seq_len\": 512,,\n}");
        String msg = assertThrows(ModelLoadException.class, () -> BundleConfigReader.read(file)).getMessage();
        assertTrue(msg.contains("not valid JSON") && msg.contains("line 2"), msg);
    }

    @Test
    void missingConfigFileIsNamed() {
        Path file = dir.resolve(BundleConfigReader.FILE_NAME);
        String msg = assertThrows(ModelLoadException.class, () -> BundleConfigReader.read(file)).getMessage();
        assertTrue(msg.contains("flux2-config.json not found") && msg.contains(dir.toString()), msg);
    }

    @Test
    void unifiedVaeDecoderIsReportedAsUnsupported() {
        String msg = failure(n -> {
            ObjectNode models = (ObjectNode) n.get("models");
            models.remove("vae_decoder_pre");
            models.putObject("vae_decoder").put("file", "vae-decoder.onnx");
        });
        assertTrue(msg.contains("models.vae_decoder") && msg.contains("split decoder"), msg);
    }
}
