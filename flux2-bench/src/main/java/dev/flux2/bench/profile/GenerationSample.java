package dev.flux2.bench.profile;

import dev.flux2.api.StageTimings;

/**
 * One measured generation.
 *
 * @param index 1-based generation number
 * @param timings the pipeline's own timings ({@code GenerationResult.timings()})
 * @param wallNanos wall time around {@code generate} as the caller sees it
 * @param rssBytes VmRSS right after the generation
 * @param peakRssBytes VmHWM right after the generation
 * @param directBytes JVM direct-buffer memory in use right after the generation (freed only by GC)
 * @param heapUsedBytes Java heap in use right after the generation
 * @param rssAfterGcBytes VmRSS after a full GC that also freed unreachable direct buffers (rss-growth mode only;
 *     -1 otherwise)
 * @param sessionNanos time inside ONNX Runtime session creation and close during the generation
 */
record GenerationSample(
        int index,
        StageTimings timings,
        long wallNanos,
        long rssBytes,
        long peakRssBytes,
        long directBytes,
        long heapUsedBytes,
        long rssAfterGcBytes,
        SessionNanos sessionNanos) {

    /**
     * Time inside ONNX Runtime's session lifecycle during one generation (SEQUENTIAL: every stage's session; RESIDENT:
     * only the first use of each graph).
     *
     * @param create nanoseconds inside {@code createSession}
     * @param close nanoseconds inside {@code OrtSession.close}
     */
    record SessionNanos(long create, long close) {
        long total() {
            return create + close;
        }
    }

    /** @return total − runtime − session create/close: the SDK's own Java work, in nanoseconds */
    long javaNanos() {
        return overheadNanos() - sessionNanos.total();
    }

    /** @return total − runtime: time in the SDK (Java) and not inside {@code OrtSession.run}, in nanoseconds */
    long overheadNanos() {
        return timings.total().toNanos() - timings.runtime().toNanos();
    }

    /** @return the overhead as a percentage of the total */
    double overheadPercent() {
        return 100.0 * overheadNanos() / timings.total().toNanos();
    }
}
