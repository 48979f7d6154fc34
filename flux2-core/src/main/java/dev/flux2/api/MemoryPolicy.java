package dev.flux2.api;

/**
 * When a backend keeps its inference sessions (and the weights they hold) in memory.
 *
 * <p>The default is {@link #AUTO}: the backend keeps its sessions resident when the model's measured session
 * footprint fits in the memory available to the process, and opens one stage at a time otherwise (a FLUX.2 klein
 * bundle is about 5 GB; opening one stage at a time keeps the peak close to the largest stage instead of the sum of
 * all of them).
 */
public enum MemoryPolicy {
    /**
     * Bound the peak memory by the largest stage (≈2.6 GB for the q4 bundle's text encoder) instead of the sum of
     * all stages: a large stage's session is opened for its stage and closed after it, and every generation pays
     * its creation again. Sessions that fit beside the largest stage within that bound may stay open across
     * generations (the ONNX backend keeps the q4 bundle's VAE graphs, and every graph of a bundle whose other parts
     * are small).
     */
    SEQUENTIAL,
    /**
     * Keep every session open across {@code generate} calls until the pipeline is closed. Fastest for repeated
     * generation (servers); peak memory ≈ the sum of all stages.
     */
    RESIDENT,
    /**
     * Let the backend choose {@link #RESIDENT} when every session fits in the memory available to the process
     * (physical memory, a container's limit and the JVM's own reservations accounted), else {@link #SEQUENTIAL}.
     * The backend reports its choice and the reason (the ONNX backend: {@code flux2 info} and a DEBUG log line).
     */
    AUTO;

    /**
     * Parses a policy name case-insensitively.
     *
     * @param name {@code sequential}, {@code resident} or {@code auto}
     * @return the policy
     * @throws IllegalArgumentException naming the bad value and the accepted ones
     */
    public static MemoryPolicy parse(String name) {
        for (MemoryPolicy p : values()) {
            if (p.name().equalsIgnoreCase(name == null ? "" : name.trim())) {
                return p;
            }
        }
        throw new IllegalArgumentException(
                "unknown memory policy '" + name + "', expected sequential, resident or auto");
    }
}
