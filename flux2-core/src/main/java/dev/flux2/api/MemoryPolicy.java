package dev.flux2.api;

/**
 * When a backend keeps its inference sessions (and the weights they hold) in memory.
 *
 * <p>The default is {@link #SEQUENTIAL}: a FLUX.2 klein bundle is about 5 GB, and opening one stage at a time keeps
 * the peak close to the largest stage instead of the sum of all of them.
 */
public enum MemoryPolicy {
    /**
     * Open a stage's session, run it, close it. Peak memory ≈ the largest stage (the transformer, ≈2.5 GB for the
     * q4 bundle); every generation pays the session creation time again.
     */
    SEQUENTIAL,
    /**
     * Keep every session open across {@code generate} calls until the pipeline is closed. Fastest for repeated
     * generation (servers); peak memory ≈ the sum of all stages.
     */
    RESIDENT;

    /**
     * Parses a policy name case-insensitively.
     *
     * @param name {@code sequential} or {@code resident}
     * @return the policy
     * @throws IllegalArgumentException naming the bad value and the accepted ones
     */
    public static MemoryPolicy parse(String name) {
        for (MemoryPolicy p : values()) {
            if (p.name().equalsIgnoreCase(name == null ? "" : name.trim())) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown memory policy '" + name + "', expected sequential or resident");
    }
}
