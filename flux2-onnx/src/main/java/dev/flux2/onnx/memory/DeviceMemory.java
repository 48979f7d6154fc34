package dev.flux2.onnx.memory;

import java.util.Objects;

/**
 * The memory of the GPU sessions will run on, as the driver reports it, for {@link AutoMemoryPolicy} on CUDA.
 *
 * @param device the device, for messages ({@code CUDA device 0 (NVIDIA H200)})
 * @param freeBytes the device memory free now
 * @param limitBytes the {@code gpu_mem_limit} set for the provider's arena, 0 for none
 */
public record DeviceMemory(String device, long freeBytes, long limitBytes) {
    /** Validates. */
    public DeviceMemory {
        Objects.requireNonNull(device, "device");
        if (freeBytes < 0 || limitBytes < 0) {
            throw new IllegalArgumentException("negative memory: free " + freeBytes + ", limit " + limitBytes);
        }
    }

    /** @return what sessions may use: the free memory, at most the limit */
    public long availableBytes() {
        return limitBytes > 0 ? Math.min(freeBytes, limitBytes) : freeBytes;
    }
}
