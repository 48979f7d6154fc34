package dev.flux2.onnx.derived;

import ai.onnxruntime.OrtProvider;
import dev.flux2.onnx.bundle.GraphKeys;
import dev.flux2.onnx.bundle.GraphSignature;
import dev.flux2.onnx.options.AttentionMode;
import dev.flux2.onnx.options.CpuTuned;
import dev.flux2.onnx.options.OnnxOptions;
import dev.flux2.onnx.options.WeightsMode;
import dev.flux2.onnx.passes.AccuracyLevelZero;
import dev.flux2.onnx.passes.Fp32Activations;
import dev.flux2.onnx.passes.GraphPass;
import dev.flux2.onnx.passes.MhaFusion;
import dev.flux2.onnx.passes.MhaPrecision;
import dev.flux2.onnx.passes.PassRunner;
import dev.flux2.onnx.passes.RopeFusion;
import dev.flux2.onnx.passes.WeightDequantization;
import dev.flux2.onnx.passes.WeightDequantization.ProductPrecision;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * The one decision which graph of a bundle gets which passes, for given options and execution providers: used by the
 * backend ({@code OnnxBackendProvider.open}) and by the benchmarks alike.
 *
 * <ul>
 *   <li>the text encoder: {@code cpu_tuned}'s passes (fp32 activations, accuracy level 0); its attention is masked
 *       (causal), which the MHA fusion does not take, and its weights run once per prompt;
 *   <li>the transformers (per step and multi-step): the weight dequantization ({@code weights}), the RoPE fusion
 *       and the MHA fusion ({@code attention}) and {@code cpu_tuned}'s passes;
 *   <li>the VAE decoder (whole, or its attention chunk): the MHA fusion.
 * </ul>
 *
 * <p>Where the options meet the providers: {@code attention=auto} is fp16 MHA fusion and the RoPE fusion when the
 * first provider is CUDA and neither elsewhere; {@code weights=auto} is dequantized with fp32 products when the first provider is WebGPU and
 * packed elsewhere (docs/fused-attention.md §4, §8, §9, §10). Immutable.
 */
public final class DerivationPlan {
    /** The graphs a plan may derive, in the order they are derived. */
    static final List<String> GRAPHS = List.of(
            GraphKeys.TEXT_ENCODER,
            GraphKeys.TRANSFORMER,
            GraphKeys.TRANSFORMER_FUSED,
            GraphKeys.VAE_DECODER_ATTN_CHUNK,
            GraphKeys.VAE_DECODER);

    private final List<GraphPass> cpuPasses;
    private final Optional<MhaPrecision> mhaFusion;
    private final Optional<ProductPrecision> weightProducts;
    private final boolean ropeFusion;

    private DerivationPlan(
            List<GraphPass> cpuPasses,
            Optional<MhaPrecision> mhaFusion,
            Optional<ProductPrecision> weightProducts,
            boolean ropeFusion) {
        this.cpuPasses = List.copyOf(cpuPasses);
        this.mhaFusion = mhaFusion;
        this.weightProducts = weightProducts;
        this.ropeFusion = ropeFusion;
    }

    /**
     * @param options the backend options
     * @param providers the execution providers in order (CPU implicit last)
     * @return the plan
     */
    public static DerivationPlan of(OnnxOptions options, List<OrtProvider> providers) {
        return of(options.cpuTuned(), options.attention(), options.weights(), providers);
    }

    /**
     * @param cpuTuned the backend option {@code cpu_tuned}
     * @param attention the backend option {@code attention}
     * @param weights the backend option {@code weights}
     * @param providers the execution providers in order (CPU implicit last)
     * @return the plan
     */
    public static DerivationPlan of(
            CpuTuned cpuTuned, AttentionMode attention, WeightsMode weights, List<OrtProvider> providers) {
        Objects.requireNonNull(providers, "providers");
        OrtProvider first = providers.isEmpty() ? OrtProvider.CPU : providers.get(0);
        return new DerivationPlan(
                cpuPasses(cpuTuned),
                mhaFusion(attention, first),
                weightProducts(weights, first),
                ropeFusion(attention, first));
    }

    private static List<GraphPass> cpuPasses(CpuTuned option) {
        return switch (option) {
            case OFF -> List.of();
            case FULL -> List.of(Fp32Activations.pass(), AccuracyLevelZero.pass());
            case FP32 -> List.of(Fp32Activations.pass());
            case ACC0 -> List.of(AccuracyLevelZero.pass());
        };
    }

    /** The one place where the backend option {@code attention} meets the providers. */
    private static Optional<MhaPrecision> mhaFusion(AttentionMode mode, OrtProvider first) {
        return switch (mode) {
            case FUSED -> Optional.of(MhaPrecision.FP32);
            case FUSED_FP16 -> Optional.of(MhaPrecision.FP16);
            case GRAPH -> Optional.empty();
            // docs/fused-attention.md §4 and §9: CUDA measured faster with fp16 fused attention; WebGPU's fused
            // kernel's accuracy is not settled and the CPU was inconclusive, so they run the graph as exported.
            case AUTO -> first == OrtProvider.CUDA ? Optional.of(MhaPrecision.FP16) : Optional.empty();
        };
    }

    /**
     * docs/fused-attention.md §10: on CUDA RoPE as one {@code RotaryEmbedding} node per q and k was measured 6 % and
     * 5 % faster a step (512², 1024²) with the prediction as exact as the fp16 attention's; elsewhere not measured,
     * so the CPU and WebGPU run RoPE as exported (no pixel changes there). Only with {@code attention=auto}: an
     * explicit attention form is run as it was measured.
     */
    private static boolean ropeFusion(AttentionMode mode, OrtProvider first) {
        return mode == AttentionMode.AUTO && first == OrtProvider.CUDA;
    }

    /** The one place where the backend option {@code weights} meets the providers. */
    private static Optional<ProductPrecision> weightProducts(WeightsMode mode, OrtProvider first) {
        return switch (mode) {
            case PACKED -> Optional.empty();
            case DEQUANTIZED -> Optional.of(ProductPrecision.FP32);
            case DEQUANTIZED_FP16 -> Optional.of(ProductPrecision.FP16);
            // WebGPU's MatMulNBits shader at block 16 is a matrix-vector kernel (docs/fused-attention.md §8); the
            // CPU's MatMulNBits is its fast path; CUDA not measured.
            case AUTO -> first == OrtProvider.WEBGPU ? Optional.of(ProductPrecision.FP32) : Optional.empty();
        };
    }

    /** @return what the MHA fusion computes in, empty when attention runs as the graphs write it */
    public Optional<MhaPrecision> mhaFusion() {
        return mhaFusion;
    }

    /** @return whether the transformers' RoPE is fused as {@code RotaryEmbedding} ({@link RopeFusion}) */
    public boolean ropeFusion() {
        return ropeFusion;
    }

    /** @return what dequantized weight products compute in, empty when the weights stay packed */
    public Optional<ProductPrecision> weightProducts() {
        return weightProducts;
    }

    /**
     * @param graphKey a config key ({@link GraphKeys})
     * @return the passes that make its derived graph, in the order they are applied; empty when it runs as exported
     */
    public List<GraphPass> passesFor(String graphKey) {
        List<GraphPass> passes = new ArrayList<>();
        boolean transformer = graphKey.equals(GraphKeys.TRANSFORMER) || graphKey.equals(GraphKeys.TRANSFORMER_FUSED);
        boolean vae = graphKey.equals(GraphKeys.VAE_DECODER_ATTN_CHUNK) || graphKey.equals(GraphKeys.VAE_DECODER);
        if (transformer) {
            weightProducts.ifPresent(p -> passes.add(WeightDequantization.of(p)));
            if (ropeFusion) {
                passes.add(RopeFusion.pass());
            }
        }
        if (transformer || vae) {
            mhaFusion.ifPresent(p -> passes.add(MhaFusion.of(p)));
        }
        if (transformer || graphKey.equals(GraphKeys.TEXT_ENCODER)) {
            passes.addAll(cpuPasses);
        }
        return PassRunner.inOrder(passes);
    }

    /**
     * Derives (or finds) the derived graph of every graph the bundle uses that this plan gives passes; a graph no
     * pass changes runs as exported and is not in the map.
     *
     * @param usedKeys the config keys of the graphs the bundle uses
     * @param signatures each graph's signature by key
     * @param store where derived graphs are stored
     * @return the derived graphs by key
     * @throws dev.flux2.api.ModelLoadException when a graph cannot be read or derived
     */
    public Map<String, DerivedGraph> derive(
            Collection<String> usedKeys, Function<String, GraphSignature> signatures, DerivedGraphStore store) {
        Map<String, DerivedGraph> derived = new LinkedHashMap<>();
        for (String key : GRAPHS) {
            List<GraphPass> passes = passesFor(key);
            if (!passes.isEmpty() && usedKeys.contains(key)) {
                store.derive(key, signatures.apply(key), passes).ifPresent(g -> derived.put(key, g));
            }
        }
        return derived;
    }

    @Override
    public String toString() {
        return "DerivationPlan[cpu " + cpuPasses.stream().map(GraphPass::key).toList() + ", MHA fusion "
                + mhaFusion.map(Enum::name).orElse("off") + ", RoPE fusion " + (ropeFusion ? "on" : "off")
                + ", dequantized weights "
                + weightProducts.map(Enum::name).orElse("off") + "]";
    }
}
