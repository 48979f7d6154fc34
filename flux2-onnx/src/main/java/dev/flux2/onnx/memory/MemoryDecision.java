package dev.flux2.onnx.memory;

import dev.flux2.api.MemoryPolicy;
import java.util.Objects;

/**
 * The memory policy a backend runs with, and why.
 *
 * @param policy {@link MemoryPolicy#SEQUENTIAL} or {@link MemoryPolicy#RESIDENT}, never {@code AUTO}
 * @param requested what the caller asked for (possibly {@code AUTO})
 * @param reason one sentence: the caller's explicit choice, or the estimate and the memory it was compared with
 */
public record MemoryDecision(MemoryPolicy policy, MemoryPolicy requested, String reason) {
    /** Validates. */
    public MemoryDecision {
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(requested, "requested");
        Objects.requireNonNull(reason, "reason");
        if (policy == MemoryPolicy.AUTO) {
            throw new IllegalArgumentException("a decision must be SEQUENTIAL or RESIDENT, got AUTO");
        }
    }

    /**
     * @param policy an explicit SEQUENTIAL or RESIDENT
     * @return the decision to use it as asked
     */
    public static MemoryDecision explicit(MemoryPolicy policy) {
        return new MemoryDecision(policy, policy, "set explicitly");
    }

    /** @return e.g. {@code resident (auto: …)} */
    public String describe() {
        return policy.name().toLowerCase(java.util.Locale.ROOT)
                + (requested == MemoryPolicy.AUTO ? " (auto: " + reason + ")" : " (" + reason + ")");
    }
}
