package dev.flux2.onnx.memory;

import dev.flux2.api.MemoryPolicy;
import java.util.Locale;

/**
 * Resolves {@link MemoryPolicy#AUTO}: RESIDENT when every session of the bundle, plus working memory, fits in what
 * the process may still use; SEQUENTIAL otherwise. Explicit policies are kept as they are.
 *
 * <p>needed = {@code SessionFootprint.residentPeakBytes()} + {@value #WORKING_MEMORY_BYTES} bytes of working
 * memory (activations and arenas of a 512² generation, measured on the timing bundle; docs/performance.md,
 * "The AUTO memory policy"); available = {@link MemorySnapshot#availableForSessionsBytes()}. RESIDENT when
 * needed ≤ available. Stateless.
 */
public final class AutoMemoryPolicy {
    /**
     * Working memory beside the weights: ONNX Runtime's arenas and activations for a 512² generation (the timing
     * bundle's RESIDENT peak minus its weights and the process's base, rounded up).
     */
    public static final long WORKING_MEMORY_BYTES = 2L << 30;

    private AutoMemoryPolicy() {}

    /**
     * @param requested the caller's policy
     * @param footprint the bundle's session footprint
     * @param memory the process's memory now
     * @return the policy to run with and why
     */
    public static MemoryDecision decide(MemoryPolicy requested, SessionFootprint footprint, MemorySnapshot memory) {
        if (requested != MemoryPolicy.AUTO) {
            return MemoryDecision.explicit(requested);
        }
        long needed = footprint.residentPeakBytes() + WORKING_MEMORY_BYTES;
        long available = memory.availableForSessionsBytes();
        String budget = "estimated resident peak " + gib(needed) + " (" + gib(footprint.weightBytes())
                + " of weights: " + SessionFootprint.SETTLED_EXTERNAL_FACTOR + "x external settled, "
                + SessionFootprint.CREATION_PEAK_FACTOR + "x while the largest is created, + "
                + gib(WORKING_MEMORY_BYTES)
                + " working memory) " + (needed <= available ? "fits in " : "exceeds ") + gib(available)
                + " available (MemAvailable " + gib(memory.memAvailableBytes()) + ", cgroup "
                + (memory.cgroup().limitBytes().isPresent()
                        ? "limit " + gib(memory.cgroup().limitBytes().getAsLong()) + " headroom "
                                + gib(memory.cgroup().headroomBytes().orElse(0))
                        : "unlimited")
                + ", minus heap headroom " + gib(memory.heapHeadroomBytes()) + " and direct memory "
                + gib(memory.directReserveBytes()) + ")";
        return new MemoryDecision(
                needed <= available ? MemoryPolicy.RESIDENT : MemoryPolicy.SEQUENTIAL, MemoryPolicy.AUTO, budget);
    }

    /**
     * AUTO on a GPU (CUDA): RESIDENT when the weights of every session, plus working memory, fit in the device's free
     * memory (at most {@code gpu_mem_limit}); SEQUENTIAL otherwise. The weights are counted as they are stored (the
     * CUDA provider keeps 4-bit weights packed on the device); the host keeps no copy once a session is created.
     *
     * @param requested the caller's policy
     * @param footprint the bundle's session footprint
     * @param device the device's memory now
     * @return the policy to run with and why
     */
    public static MemoryDecision decideOnDevice(
            MemoryPolicy requested, SessionFootprint footprint, DeviceMemory device) {
        if (requested != MemoryPolicy.AUTO) {
            return MemoryDecision.explicit(requested);
        }
        long needed = footprint.weightBytes() + WORKING_MEMORY_BYTES;
        long available = device.availableBytes();
        String budget = "on " + device.device() + ": " + gib(footprint.weightBytes()) + " of weights + "
                + gib(WORKING_MEMORY_BYTES) + " working memory = " + gib(needed)
                + (needed <= available ? " fits in " : " exceeds ") + gib(available) + " (device memory free "
                + gib(device.freeBytes())
                + (device.limitBytes() > 0 ? ", gpu_mem_limit " + gib(device.limitBytes()) : "") + ")";
        return new MemoryDecision(
                needed <= available ? MemoryPolicy.RESIDENT : MemoryPolicy.SEQUENTIAL, MemoryPolicy.AUTO, budget);
    }

    static String gib(long bytes) {
        return String.format(Locale.ROOT, "%.2f GiB", bytes / (double) (1L << 30));
    }
}
