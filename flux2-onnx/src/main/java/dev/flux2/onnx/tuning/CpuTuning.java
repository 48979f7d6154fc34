package dev.flux2.onnx.tuning;

/**
 * Which edits a CPU-tuned graph gets.
 *
 * @param accuracyLevelZero set every {@code MatMulNBits} node's {@code accuracy_level} to 0 (fp32 compute: the
 *     activations are not quantized to int8)
 * @param fp32Activations compute in fp32 where the graph computes in fp16: fp16 initializers and constants become
 *     fp32, casts to fp16 cast to fp32, and casts at the graph's inputs and outputs keep its public element types
 */
public record CpuTuning(boolean accuracyLevelZero, boolean fp32Activations) {
    /** Both edits: what the {@code cpu_tuned} backend option applies. */
    public static final CpuTuning FULL = new CpuTuning(true, true);

    /** @return a short label for file names and logs, e.g. {@code acc0-fp32} */
    public String label() {
        return (accuracyLevelZero ? "acc0" : "acc-kept") + (fp32Activations ? "-fp32" : "-fp16");
    }
}
