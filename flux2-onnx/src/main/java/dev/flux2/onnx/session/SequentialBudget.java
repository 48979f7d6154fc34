package dev.flux2.onnx.session;

import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * What {@link dev.flux2.api.MemoryPolicy#SEQUENTIAL} may hold beyond the stage that runs, without raising its peak
 * above the largest stage's creation peak plus {@value #SLACK_BYTES} bytes:
 *
 * <ul>
 *   <li><b>Small sessions are kept across generations</b>: a graph of at most {@value #SMALL_GRAPH_BYTES} bytes of
 *       weights (the VAE decoder's graphs, the attention chunk, a miniature text encoder) that is not the bundle's
 *       largest graph (the stage that sets the SEQUENTIAL peak is always closed), while all kept graphs together
 *       weigh no more than {@value #KEPT_BYTES} bytes. Their creation is then paid once; their runs return the CPU
 *       arena's free memory at their end ({@code memory.enable_memory_arena_shrinkage}), so they keep their weights,
 *       not their activations.</li>
 *   <li><b>The next stage's session is opened in the background</b> while the current one runs, when the memory
 *       already held (settled estimates of the open sessions, {@code held}) plus the next session's creation peak
 *       stays within the SEQUENTIAL peak plus the slack, and the next creation peak plus working memory fits in what
 *       the process can still allocate right now.</li>
 * </ul>
 *
 * <p>The estimates are {@link dev.flux2.onnx.memory.SessionFootprint}'s (1.3 × weights while created, 0.65 × once
 * created); the reasoning and measurements are in docs/performance.md, "SEQUENTIAL without the creation tax".
 * Immutable; thread-safe.
 *
 * @param sequentialPeakBytes the bundle's SEQUENTIAL peak estimate (the largest creation peak); 0 disables
 *     keeping and prefetching
 * @param largestGraphBytes the weights of the bundle's largest graph (never kept)
 * @param availableBytes the memory the process can still allocate now, read when asked
 * @param workingBytes working memory to leave beside a prefetched session's creation peak
 */
public record SequentialBudget(
        long sequentialPeakBytes, long largestGraphBytes, LongSupplier availableBytes, long workingBytes) {
    /** How far the peak may rise above the largest stage's creation peak (the bound: + 300 MiB). */
    public static final long SLACK_BYTES = 300L << 20;
    /** Largest graph (weights) kept across generations. */
    public static final long SMALL_GRAPH_BYTES = 128L << 20;
    /** Most weights the kept sessions may hold together. */
    public static final long KEPT_BYTES = 256L << 20;

    /** A budget that keeps nothing and prefetches nothing: every session opens and closes with its stage. */
    public static final SequentialBudget NONE = new SequentialBudget(0, 0, () -> 0, 0);

    /** Validates. */
    public SequentialBudget {
        Objects.requireNonNull(availableBytes, "availableBytes");
        if (sequentialPeakBytes < 0 || largestGraphBytes < 0 || workingBytes < 0) {
            throw new IllegalArgumentException("budget sizes must be >= 0");
        }
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
     * @param keptWeightBytes the weights of the sessions already kept
     * @return whether to keep the session across generations
     */
    boolean mayKeep(long weightBytes, long keptWeightBytes) {
        return sequentialPeakBytes > 0
                && weightBytes > 0
                && weightBytes <= SMALL_GRAPH_BYTES
                && weightBytes < largestGraphBytes
                && keptWeightBytes + weightBytes <= KEPT_BYTES;
    }

    /**
     * @param heldSettledBytes settled estimates of the sessions open now (running, kept, prefetching)
     * @param weightBytes the next graph's weights
     * @return whether its session may be created in the background now
     */
    boolean mayPrefetch(long heldSettledBytes, long weightBytes) {
        if (sequentialPeakBytes <= 0 || weightBytes <= 0) {
            return false;
        }
        long peak = creationPeak(weightBytes);
        return heldSettledBytes + peak <= sequentialPeakBytes + SLACK_BYTES
                && peak + workingBytes <= availableBytes.getAsLong();
    }
}
