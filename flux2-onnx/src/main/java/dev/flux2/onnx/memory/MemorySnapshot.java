package dev.flux2.onnx.memory;

import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * The memory the process may still use, from every source that bounds it.
 *
 * <ul>
 *   <li>{@code MemAvailable} of {@code /proc/meminfo} (what the kernel estimates can be allocated without
 *       swapping); elsewhere the JDK's free physical memory.</li>
 *   <li>The control group's limit minus its usage ({@link CgroupMemory}), when a limit is set.</li>
 *   <li>The Java heap may still grow from what it has committed to {@code -Xmx} ({@link Runtime#maxMemory()}), and
 *       direct buffers may take up to {@code -XX:MaxDirectMemorySize} (by default {@code -Xmx}); both come out of
 *       the same physical memory, so they are reserved before native sessions are counted.</li>
 * </ul>
 *
 * @param memAvailableBytes the physical memory available to new allocations
 * @param cgroup the control group's limit and usage
 * @param heapMaxBytes {@link Runtime#maxMemory()}
 * @param heapCommittedBytes {@link Runtime#totalMemory()}
 * @param directMaxBytes the direct-memory limit
 */
public record MemorySnapshot(
        long memAvailableBytes, CgroupMemory cgroup, long heapMaxBytes, long heapCommittedBytes, long directMaxBytes) {
    /**
     * Direct memory reserved for the backend: its buffer pool keeps at most 128 MiB of released buffers
     * ({@code DirectBufferPool}) and a 512² generation has a few tens of MiB in flight; the JVM's limit (by
     * default {@code -Xmx}) is far above what the backend uses.
     */
    static final long DIRECT_RESERVE_BYTES = 256L << 20;

    /** Validates. */
    public MemorySnapshot {
        Objects.requireNonNull(cgroup, "cgroup");
        if (memAvailableBytes < 0 || heapMaxBytes < 0 || heapCommittedBytes < 0 || directMaxBytes < 0) {
            throw new IllegalArgumentException("memory sizes must be >= 0");
        }
    }

    /** @return the memory of this process, read now */
    public static MemorySnapshot current() {
        Runtime rt = Runtime.getRuntime();
        return new MemorySnapshot(
                memAvailable(Path.of("/proc/meminfo")).orElseGet(MemorySnapshot::freePhysical),
                CgroupMemory.current(),
                rt.maxMemory(),
                rt.totalMemory(),
                directMax(rt.maxMemory()));
    }

    /**
     * @param meminfo a {@code /proc/meminfo} file
     * @return its {@code MemAvailable} in bytes, empty when absent or unreadable
     */
    static OptionalLong memAvailable(Path meminfo) {
        try {
            for (String line : Files.readAllLines(meminfo, StandardCharsets.US_ASCII)) {
                if (line.startsWith("MemAvailable:")) {
                    String[] parts =
                            line.substring("MemAvailable:".length()).trim().split("\\s+");
                    long value = Long.parseLong(parts[0]);
                    return OptionalLong.of(parts.length > 1 && parts[1].equalsIgnoreCase("kB") ? value * 1024 : value);
                }
            }
        } catch (IOException | RuntimeException e) {
            // Not Linux, or no procfs: the caller falls back to the JDK's figure.
        }
        return OptionalLong.empty();
    }

    private static long freePhysical() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os) {
            return Math.max(0, os.getFreeMemorySize());
        }
        return 0;
    }

    private static long directMax(long heapMax) {
        try {
            HotSpotDiagnosticMXBean hotspot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            long value =
                    Long.parseLong(hotspot.getVMOption("MaxDirectMemorySize").getValue());
            return value > 0 ? value : heapMax;
        } catch (RuntimeException e) {
            return heapMax;
        }
    }

    /** @return what the heap may still grow by ({@code -Xmx} minus what it has committed) */
    public long heapHeadroomBytes() {
        return Math.max(0, heapMaxBytes - heapCommittedBytes);
    }

    /** @return the direct memory reserved for the backend: the JVM's limit, at most {@value #DIRECT_RESERVE_BYTES} */
    public long directReserveBytes() {
        return Math.min(directMaxBytes, DIRECT_RESERVE_BYTES);
    }

    /**
     * @return the native memory the backend's sessions may use: the smaller of the physical memory available and
     *     the control group's headroom, minus the heap's headroom and the direct-memory reserve (not below 0)
     */
    public long availableForSessionsBytes() {
        long physical = memAvailableBytes;
        OptionalLong cg = cgroup.headroomBytes();
        long bound = cg.isPresent() ? Math.min(physical, cg.getAsLong()) : physical;
        return Math.max(0, bound - heapHeadroomBytes() - directReserveBytes());
    }
}
