package dev.flux2.onnx.derived;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnxruntime.OrtProvider;
import dev.flux2.onnx.bundle.GraphKeys;
import dev.flux2.onnx.options.AttentionMode;
import dev.flux2.onnx.options.CpuTuned;
import dev.flux2.onnx.options.OnnxOptions;
import dev.flux2.onnx.options.WeightsMode;
import dev.flux2.onnx.passes.GraphPass;
import dev.flux2.onnx.passes.MhaPrecision;
import dev.flux2.onnx.passes.WeightDequantization.ProductPrecision;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which graph gets which passes, for each option value and first provider. */
class DerivationPlanTest {
    private static final List<OrtProvider> CPU = List.of();
    private static final List<OrtProvider> WEBGPU = List.of(OrtProvider.WEBGPU);
    private static final List<OrtProvider> CUDA = List.of(OrtProvider.CUDA);

    private static DerivationPlan plan(
            CpuTuned cpu, AttentionMode attention, WeightsMode weights, List<OrtProvider> p) {
        return DerivationPlan.of(cpu, attention, weights, p);
    }

    private static List<String> keys(DerivationPlan plan, String graph) {
        return plan.passesFor(graph).stream().map(GraphPass::key).toList();
    }

    @Test
    void theDefaultsDeriveNothingOnTheCpu() {
        DerivationPlan plan = DerivationPlan.of(OnnxOptions.defaults(), CPU);
        for (String graph : DerivationPlan.GRAPHS) {
            assertEquals(List.of(), plan.passesFor(graph), graph);
        }
    }

    @Test
    void cpuTunedChoosesTheCpuPassesForTheTextEncoderAndTheTransformers() {
        DerivationPlan full = plan(CpuTuned.FULL, AttentionMode.GRAPH, WeightsMode.PACKED, CPU);
        assertEquals(List.of("fp32-activations@1", "accuracy-level-0@1"), keys(full, GraphKeys.TEXT_ENCODER));
        assertEquals(List.of("fp32-activations@1", "accuracy-level-0@1"), keys(full, GraphKeys.TRANSFORMER));
        assertEquals(List.of("fp32-activations@1", "accuracy-level-0@1"), keys(full, GraphKeys.TRANSFORMER_FUSED));
        assertEquals(List.of(), keys(full, GraphKeys.VAE_DECODER));
        assertEquals(
                List.of("fp32-activations@1"),
                keys(plan(CpuTuned.FP32, AttentionMode.GRAPH, WeightsMode.PACKED, CPU), GraphKeys.TRANSFORMER));
        assertEquals(
                List.of("accuracy-level-0@1"),
                keys(plan(CpuTuned.ACC0, AttentionMode.GRAPH, WeightsMode.PACKED, CPU), GraphKeys.TRANSFORMER));
    }

    @Test
    void thePassesOfOneGraphComeInTheRunnersOrder() {
        DerivationPlan all = plan(CpuTuned.FULL, AttentionMode.FUSED, WeightsMode.DEQUANTIZED, CPU);
        assertEquals(
                List.of("dequantize-weights@1(fp32)", "mha-fusion@1(fp32)", "fp32-activations@1", "accuracy-level-0@1"),
                keys(all, GraphKeys.TRANSFORMER));
        // The text encoder's attention is masked and its weights run once per prompt: the CPU passes only.
        assertEquals(List.of("fp32-activations@1", "accuracy-level-0@1"), keys(all, GraphKeys.TEXT_ENCODER));
        assertEquals(List.of("mha-fusion@1(fp32)"), keys(all, GraphKeys.VAE_DECODER_ATTN_CHUNK));
        assertEquals(List.of("mha-fusion@1(fp32)"), keys(all, GraphKeys.VAE_DECODER));
    }

    /** Measured 2.1x faster at 512² on WebGPU with fp32 products (docs/fused-attention.md §8). */
    @Test
    void weightsAutoDequantizesWithFp32ProductsOnWebGpuOnly() {
        Map<List<OrtProvider>, Optional<ProductPrecision>> auto = Map.of(
                WEBGPU, Optional.of(ProductPrecision.FP32),
                CPU, Optional.empty(),
                CUDA, Optional.empty());
        auto.forEach((providers, expected) -> assertEquals(
                expected,
                plan(CpuTuned.OFF, AttentionMode.GRAPH, WeightsMode.AUTO, providers)
                        .weightProducts(),
                providers.toString()));
        assertEquals(
                Optional.of(ProductPrecision.FP32),
                plan(CpuTuned.OFF, AttentionMode.GRAPH, WeightsMode.DEQUANTIZED, CPU)
                        .weightProducts());
        assertEquals(
                Optional.of(ProductPrecision.FP16),
                plan(CpuTuned.OFF, AttentionMode.GRAPH, WeightsMode.DEQUANTIZED_FP16, CPU)
                        .weightProducts());
        assertEquals(
                Optional.empty(),
                plan(CpuTuned.OFF, AttentionMode.GRAPH, WeightsMode.PACKED, WEBGPU)
                        .weightProducts());
        assertEquals(
                List.of("dequantize-weights@1(fp32)"),
                keys(plan(CpuTuned.OFF, AttentionMode.GRAPH, WeightsMode.AUTO, WEBGPU), GraphKeys.TRANSFORMER));
    }

    /**
     * CUDA: fp16 MHA fusion by default (docs/fused-attention.md §9); WebGPU and the CPU keep the graph (§4: not
     * settled on WebGPU, inconclusive on the CPU).
     */
    @Test
    void attentionAutoIsFp16MhaFusionOnCudaOnly() {
        assertEquals(
                Optional.of(MhaPrecision.FP16),
                plan(CpuTuned.OFF, AttentionMode.AUTO, WeightsMode.PACKED, CUDA).mhaFusion());
        assertEquals(
                Optional.empty(),
                plan(CpuTuned.OFF, AttentionMode.AUTO, WeightsMode.PACKED, WEBGPU)
                        .mhaFusion());
        assertEquals(
                Optional.empty(),
                plan(CpuTuned.OFF, AttentionMode.AUTO, WeightsMode.PACKED, CPU).mhaFusion());
        assertEquals(
                Optional.of(MhaPrecision.FP32),
                plan(CpuTuned.OFF, AttentionMode.FUSED, WeightsMode.PACKED, CUDA)
                        .mhaFusion());
        assertEquals(
                Optional.empty(),
                plan(CpuTuned.OFF, AttentionMode.GRAPH, WeightsMode.PACKED, CUDA)
                        .mhaFusion());
        assertEquals(
                Optional.of(MhaPrecision.FP16),
                plan(CpuTuned.OFF, AttentionMode.FUSED_FP16, WeightsMode.PACKED, CPU)
                        .mhaFusion());
        assertEquals(
                Optional.of(MhaPrecision.FP32),
                plan(CpuTuned.OFF, AttentionMode.FUSED, WeightsMode.PACKED, WEBGPU)
                        .mhaFusion());
        // CUDA behind another first provider: not CUDA's default.
        assertEquals(
                Optional.empty(),
                plan(
                                CpuTuned.OFF,
                                AttentionMode.AUTO,
                                WeightsMode.PACKED,
                                List.of(OrtProvider.WEBGPU, OrtProvider.CUDA))
                        .mhaFusion());
        // On CUDA with the defaults: the transformers and the VAE decoder get the fp16 fusion, the text encoder
        // nothing.
        DerivationPlan cuda = DerivationPlan.of(OnnxOptions.defaults(), CUDA);
        assertEquals(List.of("rope-fusion@1", "mha-fusion@1(fp16)"), keys(cuda, GraphKeys.TRANSFORMER));
        assertEquals(List.of("rope-fusion@1", "mha-fusion@1(fp16)"), keys(cuda, GraphKeys.TRANSFORMER_FUSED));
        assertEquals(List.of("mha-fusion@1(fp16)"), keys(cuda, GraphKeys.VAE_DECODER_ATTN_CHUNK));
        assertEquals(List.of(), keys(cuda, GraphKeys.TEXT_ENCODER));
    }

    /**
     * The RoPE fusion (docs/fused-attention.md §10): the transformers' on CUDA with {@code attention=auto} only; the CPU
     * and WebGPU, and an explicit attention form on CUDA, run RoPE as exported.
     */
    @Test
    void ropeFusionIsCudasWithAttentionAutoOnly() {
        assertTrue(
                plan(CpuTuned.OFF, AttentionMode.AUTO, WeightsMode.PACKED, CUDA).ropeFusion());
        for (AttentionMode explicit : List.of(AttentionMode.FUSED, AttentionMode.FUSED_FP16, AttentionMode.GRAPH)) {
            assertFalse(plan(CpuTuned.OFF, explicit, WeightsMode.PACKED, CUDA).ropeFusion(), explicit.name());
        }
        for (List<OrtProvider> p : List.of(CPU, WEBGPU, List.of(OrtProvider.WEBGPU, OrtProvider.CUDA))) {
            DerivationPlan plan = plan(CpuTuned.OFF, AttentionMode.AUTO, WeightsMode.AUTO, p);
            assertFalse(plan.ropeFusion(), p.toString());
            assertFalse(
                    keys(plan, GraphKeys.TRANSFORMER).stream().anyMatch(k -> k.startsWith("rope-fusion")),
                    p.toString());
        }
        DerivationPlan cuda = plan(CpuTuned.OFF, AttentionMode.AUTO, WeightsMode.PACKED, CUDA);
        assertEquals(List.of("mha-fusion@1(fp16)"), keys(cuda, GraphKeys.VAE_DECODER));
        assertEquals(List.of("mha-fusion@1(fp16)"), keys(cuda, GraphKeys.VAE_DECODER_ATTN_CHUNK));
    }
}
