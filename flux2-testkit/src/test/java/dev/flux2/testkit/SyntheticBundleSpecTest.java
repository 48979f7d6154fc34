package dev.flux2.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SyntheticBundleSpecTest {

    @Test
    void defaults() {
        SyntheticBundleSpec spec = SyntheticBundleSpec.builder().build();
        assertEquals(64, spec.textSequenceLength());
        assertEquals(32, spec.contextDim());
        assertEquals(64, spec.defaultWidth());
        assertEquals(64, spec.defaultHeight());
        assertEquals(64, spec.vaeChunkSize());
        assertEquals(8, spec.vaeHeadDim());
        assertEquals(FusedConvention.NONE, spec.fused());
        assertTrue(spec.vaeEncoder());
        assertTrue(spec.distilled());
        assertEquals(4, spec.numSteps());
        assertEquals(1.0, spec.guidance());
        assertTrue(spec.modelVariant().contains("distilled"));
        assertEquals(0, spec.transformerPaddingBytes());
        assertTrue(
                Files.isRegularFile(spec.tokenizerSource().resolve("tokenizer.json")),
                "default tokenizer source " + spec.tokenizerSource());
        assertFalse(spec.graphs().contains(BundleGraph.TRANSFORMER_FUSED_4STEP));
        assertFalse(spec.graphs().contains(BundleGraph.VAE_DECODER));
        assertFalse(spec.graphs().contains(BundleGraph.VAE_DECODER_POST));
        assertEquals(BundleGraph.values().length - 3, spec.graphs().size());
        assertEquals(VaeDecoderLayout.SPLIT, spec.decoderLayout());
        assertEquals(TensorElementType.FLOAT16, spec.activationType(BundleGraph.TRANSFORMER));
        assertEquals(TensorElementType.FLOAT, spec.idType());
        assertEquals(TensorElementType.INT64, spec.tokenType());
    }

    @Test
    void baseVariant() {
        SyntheticBundleSpec spec =
                SyntheticBundleSpec.builder().distilled(false).build();
        assertEquals(50, spec.numSteps());
        assertEquals(4.0, spec.guidance());
        assertTrue(spec.modelVariant().contains("base"));
        assertFalse(spec.modelVariant().contains("distilled"));
    }

    @Test
    void fusedInputNamesPerConvention() {
        assertEquals(
                List.of(
                        "x",
                        "x_ids",
                        "ctx",
                        "ctx_ids",
                        "timestep_0",
                        "timestep_1",
                        "timestep_2",
                        "timestep_3",
                        "dt_0",
                        "dt_1",
                        "dt_2",
                        "dt_3"),
                SyntheticBundleSpec.builder()
                        .fused(FusedConvention.ENGINE)
                        .build()
                        .inputNames("transformer_fused_4step"));
        assertEquals(
                List.of("x", "x_ids", "timesteps", "ctx", "ctx_ids"),
                SyntheticBundleSpec.builder()
                        .fused(FusedConvention.LISTED)
                        .build()
                        .inputNames("transformer_fused_4step"));
        assertThrows(
                IllegalArgumentException.class,
                () -> SyntheticBundleSpec.builder().build().inputNames("transformer_fused_4step"));
    }

    @Test
    void invalidSizesNameTheField() {
        assertMessage(
                "defaultWidth",
                () -> SyntheticBundleSpec.builder().defaultSize(72, 64).build());
        assertMessage(
                "defaultHeight",
                () -> SyntheticBundleSpec.builder().defaultSize(64, 0).build());
        assertMessage(
                "textSequenceLength",
                () -> SyntheticBundleSpec.builder().textSequenceLength(0).build());
        assertMessage(
                "contextDim", () -> SyntheticBundleSpec.builder().contextDim(-1).build());
        assertMessage(
                "vaeChunkSize",
                () -> SyntheticBundleSpec.builder().vaeChunkSize(0).build());
        assertMessage(
                "vaeHeadDim", () -> SyntheticBundleSpec.builder().vaeHeadDim(0).build());
        assertMessage(
                "transformerPaddingBytes",
                () -> SyntheticBundleSpec.builder().transformerPaddingBytes(-1).build());
        assertMessage(
                "transformerPaddingBytes",
                () -> SyntheticBundleSpec.builder()
                        .transformerPaddingBytes(SyntheticBundleSpec.MAX_PADDING_BYTES + 1)
                        .build());
    }

    @Test
    void overridesAreValidated() {
        assertMessage("unknown graph key", () -> SyntheticBundleSpec.builder().renameInput("nope", "x", "y"));
        assertMessage(
                "has no input 'y'",
                () -> SyntheticBundleSpec.builder()
                        .renameInput("transformer", "y", "z")
                        .build());
        assertMessage(
                "would name two inputs",
                () -> SyntheticBundleSpec.builder()
                        .renameInput("transformer", "x", "ctx")
                        .build());
        assertMessage(
                "not part of this bundle",
                () -> SyntheticBundleSpec.builder()
                        .vaeEncoder(false)
                        .inputElementType("vae_encoder", "image", TensorElementType.FLOAT)
                        .build());
        assertMessage(
                "has no input 'timesteps'",
                () -> SyntheticBundleSpec.builder()
                        .fused(FusedConvention.ENGINE)
                        .inputElementType("transformer_fused_4step", "timesteps", TensorElementType.FLOAT)
                        .build());

        SyntheticBundleSpec spec = SyntheticBundleSpec.builder()
                .renameInput("transformer", "x", "hidden_states")
                .inputElementType("text_encoder", "input_ids", TensorElementType.INT32)
                .build();
        assertEquals(Map.of("x", "hidden_states"), spec.renamedInputs("transformer"));
        assertEquals(Map.of("input_ids", TensorElementType.INT32), spec.inputElementTypes("text_encoder"));
        assertEquals(Map.of(), spec.renamedInputs("text_encoder"));
        assertTrue(spec.inputNames("transformer").contains("x"), "config names stay the real ones");
    }

    @Test
    void paddingRoundsUpToWholeColumns() {
        SyntheticBundleSpec spec =
                SyntheticBundleSpec.builder().transformerPaddingBytes(1).build();
        assertEquals(1, spec.paddingColumns());
        long gib = 1L << 30;
        SyntheticBundleSpec big =
                SyntheticBundleSpec.builder().transformerPaddingBytes(gib).build();
        assertTrue(big.paddingColumns() * SyntheticDims.PADDING_BYTES_PER_COLUMN >= gib);
        assertTrue((big.paddingColumns() - 1) * SyntheticDims.PADDING_BYTES_PER_COLUMN < gib);
    }

    private static void assertMessage(String fragment, Runnable r) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, r::run);
        assertTrue(e.getMessage().contains(fragment), "message '" + e.getMessage() + "' should contain " + fragment);
    }
}
