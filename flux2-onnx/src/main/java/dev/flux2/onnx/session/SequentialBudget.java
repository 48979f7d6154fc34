package dev.flux2.onnx.session;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * What {@link dev.flux2.api.MemoryPolicy#SEQUENTIAL} may hold beyond the stage that runs, without raising its peak
 * above the largest stage's creation peak plus {@value #SLACK_BYTES} bytes:
 *
 * <ul>
 *   <li><b>Sessions are kept across generations</b> when what the kept sessions hold once created (settled
 *       estimates), plus the creation peak of the largest graph that is not kept, stays within the SEQUENTIAL peak
 *       plus the slack, and the memory the process can still allocate leaves the working memory free. On a bundle
 *       whose graphs are all small beside the largest (the timing bundle, a miniature text encoder beside a large
 *       transformer) every session stays open and a generation creates none; on the real bundle, whose text encoder
 *       and transformer are each about half of the weights, only the VAE graphs stay. When a later creation can
 *       follow (not everything is kept), their last run in a generation returns the CPU arena's free memory
 *       ({@code memory.enable_memory_arena_shrinkage}), so they keep their weights, not their activations. A kept
 *       session gives way ({@link #mustEvict}) when a creation would not fit beside it.</li>
 *   <li><b>The next stage's session is opened in the background</b> while the current one runs, when the memory
 *       already held (settled estimates of the open sessions, {@code held}) plus the next session's creation peak
 *       stays within the SEQUENTIAL peak plus the slack, and the next creation peak plus working memory fits in what
 *       the process can still allocate right now.</li>
 * </ul>
 *
 * <p>The estimates are {@code dev.flux2.onnx.memory.SessionFootprint}'s (1.3 × weights while created, 0.65 × once
 * created); the reasoning and measurements are in docs/performance.md, "SEQUENTIAL without the creation tax".
 * Immutable; thread-safe.
 *
 * @param graphWeightBytes the weights of each graph of the bundle (the largest sets the SEQUENTIAL peak); empty
 *     disables keeping and prefetching
 * @param availableBytes the memory the process can still allocate now, read when asked
 * @param workingBytes working memory to leave beside a prefetched session's creation peak or a kept session
 */
public record SequentialBudget(List<Long> graphWeightBytes, LongSupplier availableBytes, long workingBytes) {
    /** How far the peak may rise above the largest stage's creation peak (the bound: + 300 MiB). */
    public static final long SLACK_BYTES = 300L << 20;

    /** A budget that keeps nothing and prefetches nothing: every session opens and closes with its stage. */
    public static final SequentialBudget NONE = new SequentialBudget(List.of(), () -> 0, 0);

    /** Validates and copies. */
    public SequentialBudget {
        Objects.requireNonNull(availableBytes, "availableBytes");
        graphWeightBytes = List.copyOf(graphWeightBytes);
        if (graphWeightBytes.stream().anyMatch(w -> w < 0) || workingBytes < 0) {
            throw new IllegalArgumentException("budget sizes must be >= 0");
        }
    }

    /** @return the SEQUENTIAL peak estimate: the largest graph's creation peak (0 without graphs) */
    public long sequentialPeakBytes() {
        return creationPeak(
                graphWeightBytes.stream().mapToLong(Long::longValue).max().orElse(0));
    }

    /** @return the most the open sessions may hold: the SEQUENTIAL peak plus the slack (0 without graphs) */
    long limitBytes() {
        return graphWeightBytes.isEmpty() ? 0 : sequentialPeakBytes() + SLACK_BYTES;
    }

    /**
     * @param weightBytes a graph's weights
     * @return its creation peak estimate
     */
    static long creationPeak(long weightBytes) {
        return (long) (dev.flux2.onnx.memory.SessionFootprint.CREATION_PEAK_FACTOR * weightBytes);
    }

    /**
     * @param weightBytes a graph's weights
     * @return the estimate of what its session holds once created (all weights counted as external: 0.65 ×; an
     *     inline-weight graph holds up to 1 ×, which the slack covers for small graphs)
     */
    static long settled(long weightBytes) {
        return (long) (dev.flux2.onnx.memory.SessionFootprint.SETTLED_EXTERNAL_FACTOR * weightBytes);
    }

    /**
     * @param weightBytes the graph's weights
     * @param keptWeightBytes the weights of each session already kept
     * @return whether to keep the session across generations: the kept sessions' settled sizes plus the creation
     *     peak of the largest graph left to create fit within the SEQUENTIAL peak plus the slack, and the working
     *     memory is still free
     */
    boolean mayKeep(long weightBytes, List<Long> keptWeightBytes) {
        if (graphWeightBytes.isEmpty() || weightBytes <= 0) {
            return false;
        }
        List<Long> kept = new ArrayList<>(keptWeightBytes);
        kept.add(weightBytes);
        long held = kept.stream().mapToLong(SequentialBudget::settled).sum();
        // The graphs not kept are created again by each generation; a kept weight matches one graph.
        List<Long> toCreate = new ArrayList<>(graphWeightBytes);
        for (Long w : kept) {
            toCreate.remove(w);
        }
        long nextPeak =
                creationPeak(toCreate.stream().mapToLong(Long::longValue).max().orElse(0));
        return held + nextPeak <= limitBytes() && workingBytes <= availableBytes.getAsLong();
    }

    /**
     * @return whether every graph can end up kept: each graph's creation peak fits beside the settled sizes of all the
     *     others (whatever the order of creation). Then no generation creates a session after the first, so a kept
     *     session's arena need not give back its activations' memory between generations (giving it back and
     *     faulting it in again cost 10 % of a timing-bundle generation)
     */
    boolean keepsEverything() {
        if (graphWeightBytes.isEmpty()) {
            return false;
        }
        long settledAll =
                graphWeightBytes.stream().mapToLong(SequentialBudget::settled).sum();
        for (long w : graphWeightBytes) {
            if (settledAll - settled(w) + creationPeak(w) > limitBytes()) {
                return false;
            }
        }
        return true;
    }

    /**
     * @param heldSettledBytes settled estimates of the sessions open now (running, kept, prefetching)
     * @param weightBytes the next graph's weights
     * @return whether its session may be created in the background now
     */
    boolean mayPrefetch(long heldSettledBytes, long weightBytes) {
        if (graphWeightBytes.isEmpty() || weightBytes <= 0) {
            return false;
        }
        long peak = creationPeak(weightBytes);
        return heldSettledBytes + peak <= limitBytes() && peak + workingBytes <= availableBytes.getAsLong();
    }

    /**
     * @param heldSettledBytes settled estimates of the sessions open now
     * @param weightBytes the weights of the graph about to be created in the foreground
     * @return whether kept sessions must be closed first so that its creation stays within the limit
     */
    boolean mustEvict(long heldSettledBytes, long weightBytes) {
        return !graphWeightBytes.isEmpty() && heldSettledBytes + creationPeak(weightBytes) > limitBytes();
    }
}
