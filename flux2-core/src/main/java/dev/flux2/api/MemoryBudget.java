package dev.flux2.api;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;

/**
 * What the memory limits are derived from: the Java heap's maximum and the machine's physical memory. The working-set
 * figures are estimates of the FLUX.2 [klein] pipeline's largest buffers, documented in docs/limits.md §1.
 */
final class MemoryBudget {
    /**
     * Native working set per output pixel, a property of the FLUX.2 VAE decoder rather than of any runtime: its last
     * stages hold 128 channels at full resolution, about four such tensors alive at once, counted at 4 bytes (fp32,
     * the conservative case: a runtime computing in fp16 needs half).
     */
    static final long NATIVE_BYTES_PER_OUTPUT_PIXEL = 128L * 4 * 4;
    /**
     * Java heap per output pixel: the decoded planar float image (12 bytes), the packed {@code BufferedImage} (4) and
     * the latents (noise, x, velocity: 3·128·4/256 = 6, rounded up to 8).
     */
    static final long HEAP_BYTES_PER_OUTPUT_PIXEL = 12 + 4 + 8;
    /** Java heap per decoded input-image pixel: the decoded image (4), its packed copy (4) and resizing rows (4). */
    static final long HEAP_BYTES_PER_INPUT_PIXEL = 12;
    /** Share of physical memory a generation may plan to use. */
    private static final double PHYSICAL_SHARE = 0.5;

    private MemoryBudget() {}

    /** @return the largest heap this JVM may grow to */
    static long maxHeap() {
        return Runtime.getRuntime().maxMemory();
    }

    /** @return heap that can still be allocated: the maximum minus what is in use now */
    static long availableHeap() {
        Runtime rt = Runtime.getRuntime();
        return rt.maxMemory() - (rt.totalMemory() - rt.freeMemory());
    }

    /** @return half of the physical memory, or 8 GiB when the platform does not say */
    static long nativeBudget() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
            long total = sun.getTotalMemorySize();
            if (total > 0) {
                return (long) (total * PHYSICAL_SHARE);
            }
        }
        return 8L << 30;
    }

    /** @param bytes a byte count @return it in MiB, rounded up, for messages */
    static long mib(long bytes) {
        return (bytes + (1L << 20) - 1) >> 20;
    }
}
