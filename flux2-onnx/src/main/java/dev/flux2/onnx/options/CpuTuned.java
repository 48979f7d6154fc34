package dev.flux2.onnx.options;

/**
 * The backend option {@code cpu_tuned}: whether, once, a CPU variant of the text encoder and transformer graphs is
 * derived (stored beside the bundle or in the cache folder, referencing the original shards) and run, and with which
 * edits.
 */
public enum CpuTuned {
    /** {@code false}: the graphs as exported (the default). */
    OFF("false"),
    /** {@code true}: {@code MatMulNBits} accuracy level 0 and fp32 activations. */
    FULL("true"),
    /** {@code fp32}: fp32 activations only, the accuracy level kept. */
    FP32("fp32"),
    /** {@code acc0}: accuracy level 0 only. */
    ACC0("acc0");

    private final String value;

    CpuTuned(String value) {
        this.value = value;
    }

    /** @return the option's value for this choice: {@code false}, {@code true}, {@code fp32} or {@code acc0} */
    public String value() {
        return value;
    }
}
