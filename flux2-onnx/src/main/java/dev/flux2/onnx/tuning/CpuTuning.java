package dev.flux2.onnx.tuning;

import dev.flux2.onnx.attention.AttentionFuser;
import dev.flux2.onnx.options.CpuTuned;
import dev.flux2.onnx.weights.WeightForm;
import java.util.Optional;

/**
 * Which edits a CPU-tuned graph gets.
 *
 * @param accuracyLevelZero set every {@code MatMulNBits} node's {@code accuracy_level} to 0 (fp32 compute: the
 *     activations are not quantized to int8)
 * @param fp32Activations compute in fp32 where the graph computes in fp16: fp16 initializers and constants become
 *     fp32, casts to fp16 cast to fp32, and casts at the graph's inputs and outputs keep its public element types
 * @param fusedAttention replace every recognised attention subgraph with ONNX Runtime's fused
 *     {@code com.microsoft.MultiHeadAttention} ({@link dev.flux2.onnx.attention.AttentionFuser}); not CPU-specific
 *     despite this type's name: the derived graphs of every provider share this store
 * @param weights how the 4-bit block-16 {@code MatMulNBits} are computed: packed as exported, or dequantized in the
 *     graph before a {@code MatMul} ({@link dev.flux2.onnx.weights.WeightDequantizer}); for WebGPU, not the CPU
 * @param mhaPrecision the element type the fused {@code MultiHeadAttention} computes in (read when
 *     {@code fusedAttention})
 */
public record CpuTuning(
        boolean accuracyLevelZero,
        boolean fp32Activations,
        boolean fusedAttention,
        WeightForm weights,
        AttentionFuser.Precision mhaPrecision) {
    /** Both CPU edits: what the {@code cpu_tuned} backend option applies. */
    public static final CpuTuning FULL = new CpuTuning(true, true);

    /** Fused attention alone: what the {@code attention} backend option applies without {@code cpu_tuned}. */
    public static final CpuTuning ATTENTION_ONLY = new CpuTuning(false, false, true);

    /** Dequantized weights alone: what the {@code weights} backend option applies without other edits. */
    public static final CpuTuning WEIGHTS_ONLY = new CpuTuning(false, false, false, WeightForm.DEQUANTIZED);

    /** Checks for null. */
    public CpuTuning {
        java.util.Objects.requireNonNull(weights, "weights");
        java.util.Objects.requireNonNull(mhaPrecision, "mhaPrecision");
    }

    /**
     * The edits with fp32 fused attention.
     *
     * @param accuracyLevelZero see the record
     * @param fp32Activations see the record
     * @param fusedAttention see the record
     * @param weights see the record
     */
    public CpuTuning(boolean accuracyLevelZero, boolean fp32Activations, boolean fusedAttention, WeightForm weights) {
        this(accuracyLevelZero, fp32Activations, fusedAttention, weights, AttentionFuser.Precision.FP32);
    }

    /**
     * The edits with the weights kept packed.
     *
     * @param accuracyLevelZero see the record
     * @param fp32Activations see the record
     * @param fusedAttention see the record
     */
    public CpuTuning(boolean accuracyLevelZero, boolean fp32Activations, boolean fusedAttention) {
        this(accuracyLevelZero, fp32Activations, fusedAttention, WeightForm.PACKED);
    }

    /**
     * The CPU edits without fused attention.
     *
     * @param accuracyLevelZero see the record
     * @param fp32Activations see the record
     */
    public CpuTuning(boolean accuracyLevelZero, boolean fp32Activations) {
        this(accuracyLevelZero, fp32Activations, false);
    }

    /**
     * @param option the backend option {@code cpu_tuned}
     * @return its edits, empty for {@link CpuTuned#OFF} (the graphs as exported)
     */
    public static Optional<CpuTuning> of(CpuTuned option) {
        return switch (option) {
            case OFF -> Optional.empty();
            case FULL -> Optional.of(FULL);
            case FP32 -> Optional.of(new CpuTuning(false, true));
            case ACC0 -> Optional.of(new CpuTuning(true, false));
        };
    }

    /** @return these edits with fused attention on or off */
    public CpuTuning withFusedAttention(boolean fused) {
        return new CpuTuning(accuracyLevelZero, fp32Activations, fused, weights, mhaPrecision);
    }

    /** @return these edits with fused attention in the given precision, or without it when empty */
    public CpuTuning withFusedAttention(Optional<AttentionFuser.Precision> precision) {
        return new CpuTuning(
                accuracyLevelZero,
                fp32Activations,
                precision.isPresent(),
                weights,
                precision.orElse(AttentionFuser.Precision.FP32));
    }

    /** @return these edits with the block-16 weight products in the given form */
    public CpuTuning withWeights(WeightForm form) {
        return new CpuTuning(accuracyLevelZero, fp32Activations, fusedAttention, form, mhaPrecision);
    }

    /** @return whether the rewrite changes anything */
    public boolean editsAnything() {
        return editsCpu() || fusedAttention || weights != WeightForm.PACKED;
    }

    /** @return whether anything besides attention is edited */
    public boolean editsCpu() {
        return accuracyLevelZero || fp32Activations;
    }

    /**
     * @return a short label for file names and logs, e.g. {@code acc0-fp32}, {@code acc-kept-fp16-dq},
     *     {@code acc-kept-fp16-mha16} (fp16 fused attention)
     */
    public String label() {
        return (accuracyLevelZero ? "acc0" : "acc-kept")
                + (fp32Activations ? "-fp32" : "-fp16")
                + (fusedAttention ? (mhaPrecision == AttentionFuser.Precision.FP16 ? "-mha16" : "-mha") : "")
                + weights.label();
    }
}
