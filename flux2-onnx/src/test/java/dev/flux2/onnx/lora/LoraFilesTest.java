package dev.flux2.onnx.lora;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.InvalidRequestException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * LoRA files written by the reference safetensors writer in each layout, read into layers whose updates
 * scale·B·A must equal those diffusers' own conversion functions produce (the fixtures and their expected updates
 * come from src/test/resources/lora/make_lora_fixtures.py, which runs diffusers' code at 58eb52c).
 */
class LoraFilesTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"diffusers_f32", "diffusers_meta_f16", "bfl_bf16", "peft_bf16", "kohya_f32", "kohya_f16"})
    void updatesEqualDiffusersConversion(String name) throws IOException {
        LoraAdapterFile lora = LoraFiles.read(fixture(name + ".safetensors"));
        SafetensorsFile expected = SafetensorsFile.open(fixture(name + ".expected.safetensors"), 1 << 20);
        Map<String, LoraLayer> byModule = new TreeMap<>();
        lora.layers().forEach(l -> byModule.put(l.target(), l));
        assertEquals(expected.entries().keySet(), byModule.keySet(), "adapted layers of " + name);
        for (SafetensorsFile.Entry e : expected.entries().values()) {
            LoraLayer layer = byModule.get(e.name());
            float[] want = expected.floats(e);
            assertEquals(e.shape()[0], layer.outFeatures(), e.name() + " out");
            assertEquals(e.shape()[1], layer.inFeatures(), e.name() + " in");
            double[] got = delta(layer);
            for (int i = 0; i < want.length; i++) {
                assertEquals(
                        want[i],
                        got[i],
                        1e-5 * Math.max(1, Math.abs(want[i])),
                        name + " " + e.name() + " element " + i);
            }
        }
        assertEquals(64, lora.sha256().length());
    }

    @Test
    void formatsAreDetectedAsDiffusersDoes() throws IOException {
        assertEquals(
                LoraFormat.DIFFUSERS,
                LoraFiles.read(fixture("diffusers_f32.safetensors")).format());
        assertEquals(
                LoraFormat.BFL, LoraFiles.read(fixture("bfl_bf16.safetensors")).format());
        assertEquals(
                LoraFormat.BFL, LoraFiles.read(fixture("peft_bf16.safetensors")).format());
        assertEquals(
                LoraFormat.KOHYA,
                LoraFiles.read(fixture("kohya_f32.safetensors")).format());
    }

    @Test
    void metadataScaleIsAlphaOverRank() throws IOException {
        LoraAdapterFile lora = LoraFiles.read(fixture("diffusers_meta_f16.safetensors"));
        Map<String, Double> scales = new TreeMap<>();
        lora.layers().forEach(l -> scales.put(l.target(), l.scale()));
        assertEquals(
                Map.of(
                        "proj_out",
                        0.5,
                        "transformer_blocks.0.attn.add_k_proj",
                        2.0,
                        "transformer_blocks.0.attn.to_add_out",
                        2.0),
                scales);
    }

    @Test
    void textEncoderKeysAreRefusedByName() throws IOException {
        InvalidRequestException e = assertThrows(
                InvalidRequestException.class, () -> LoraFiles.read(fixture("refuse_text_encoder.safetensors")));
        assertTrue(e.getMessage().contains("lora_te1_text_model_encoder_layers_0_self_attn_q_proj"), e.getMessage());
        assertTrue(e.getMessage().contains("map to no layer"), e.getMessage());
    }

    @Test
    void anotherModelsLoraIsRefusedByName() throws IOException {
        InvalidRequestException e =
                assertThrows(InvalidRequestException.class, () -> LoraFiles.read(fixture("refuse_sdxl.safetensors")));
        assertTrue(e.getMessage().contains("unet.down_blocks.0.attentions.0"), e.getMessage());
    }

    @Test
    void aLoneFactorIsRefused() throws IOException {
        InvalidRequestException e =
                assertThrows(InvalidRequestException.class, () -> LoraFiles.read(fixture("refuse_lone_a.safetensors")));
        assertTrue(e.getMessage().contains("proj_out has lora_A but no lora_B"), e.getMessage());
    }

    @Test
    void metadataRankThatDisagreesWithTheFactorsIsRefused() throws IOException {
        Path f = dir.resolve("meta.safetensors");
        String meta = "{\"transformer.r\": 8, \"transformer.lora_alpha\": 8}";
        SafetensorsWriter.write(
                f,
                Map.of("lora_adapter_metadata", meta),
                Map.of(
                        "transformer.proj_out.lora_A.weight",
                        new float[][] {{1, 2}},
                        "transformer.proj_out.lora_B.weight",
                        new float[][] {{1}, {2}}));
        InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> LoraFiles.read(f));
        assertTrue(e.getMessage().contains("rank 8 but its factors have rank 1"), e.getMessage());
    }

    private static double[] delta(LoraLayer l) {
        double[] out = new double[l.outFeatures() * l.inFeatures()];
        for (int o = 0; o < l.outFeatures(); o++) {
            for (int i = 0; i < l.inFeatures(); i++) {
                double s = 0;
                for (int r = 0; r < l.rank(); r++) {
                    s += (double) l.up()[o * l.rank() + r] * l.down()[r * l.inFeatures() + i];
                }
                out[o * l.inFeatures() + i] = s * l.scale();
            }
        }
        return out;
    }

    private Path fixture(String name) throws IOException {
        Path f = dir.resolve(name);
        try (InputStream in = LoraFilesTest.class.getResourceAsStream("/lora/" + name)) {
            Files.copy(in, f);
        }
        return f;
    }
}
