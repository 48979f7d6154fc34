package dev.flux2.onnx.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.MemoryPolicy;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * AUTO on a CUDA device: decided by the device's free memory (at most {@code gpu_mem_limit}) against the weights and
 * the working memory, with the numbers in the reason.
 */
class DeviceMemoryPolicyTest {
    private static final long GIB = 1L << 30;
    private static final long MIB = 1L << 20;

    /** Weights: 2602 + 2503 + 160 MiB = 5265 MiB; with 2 GiB of working memory 7313 MiB are needed. */
    private static final SessionFootprint Q4 = new SessionFootprint(List.of(
            new SessionFootprint.GraphWeights("text_encoder", 2 * MIB, 2600 * MIB),
            new SessionFootprint.GraphWeights("transformer", 3 * MIB, 2500 * MIB),
            new SessionFootprint.GraphWeights("vae_decoder", 160 * MIB, 0)));

    private static final long NEEDED = 5265 * MIB + 2 * GIB;

    @Test
    void residentWhenWeightsAndWorkingMemoryFitInTheFreeDeviceMemory() {
        MemoryDecision d = AutoMemoryPolicy.decideOnDevice(
                MemoryPolicy.AUTO, Q4, new DeviceMemory("CUDA device 0 (NVIDIA H200)", NEEDED, 0));
        assertEquals(MemoryPolicy.RESIDENT, d.policy());
        assertEquals(
                "on CUDA device 0 (NVIDIA H200): 5.14 GiB of weights + 2.00 GiB working memory = 7.14 GiB fits in"
                        + " 7.14 GiB (device memory free 7.14 GiB)",
                d.reason());
    }

    @Test
    void sequentialWhenTheyDoNot() {
        MemoryDecision d = AutoMemoryPolicy.decideOnDevice(
                MemoryPolicy.AUTO, Q4, new DeviceMemory("CUDA device 1 (RTX 3060)", NEEDED - 1, 0));
        assertEquals(MemoryPolicy.SEQUENTIAL, d.policy());
        assertTrue(d.reason().contains(" exceeds "), d.reason());
    }

    @Test
    void theMemoryLimitCapsWhatIsFree() {
        DeviceMemory limited = new DeviceMemory("CUDA device 0 (NVIDIA H200)", 140 * GIB, 6 * GIB);
        assertEquals(6 * GIB, limited.availableBytes());
        MemoryDecision d = AutoMemoryPolicy.decideOnDevice(MemoryPolicy.AUTO, Q4, limited);
        assertEquals(MemoryPolicy.SEQUENTIAL, d.policy());
        assertTrue(
                d.reason().endsWith("exceeds 6.00 GiB (device memory free 140.00 GiB, gpu_mem_limit 6.00 GiB)"),
                d.reason());
    }

    @Test
    void explicitPoliciesAreKeptOnTheDeviceToo() {
        DeviceMemory none = new DeviceMemory("CUDA device 0", 0, 0);
        assertEquals(
                MemoryPolicy.RESIDENT,
                AutoMemoryPolicy.decideOnDevice(MemoryPolicy.RESIDENT, Q4, none).policy());
        assertEquals(
                MemoryPolicy.SEQUENTIAL,
                AutoMemoryPolicy.decideOnDevice(MemoryPolicy.SEQUENTIAL, Q4, none)
                        .policy());
    }
}
