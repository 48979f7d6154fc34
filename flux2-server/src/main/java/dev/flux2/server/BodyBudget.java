package dev.flux2.server;

/**
 * The request bodies held in memory at once, in bytes: a request reserves its declared {@code Content-Length} (or,
 * without one, its cap) before a byte is read and keeps it until it is answered, so concurrent uploads just under
 * the cap cannot exhaust the heap whatever the queue's size. A request that does not fit is answered 429 without
 * its body being read. Tracks the peak for {@code /health}. Thread-safe.
 */
final class BodyBudget {
    private final long total;
    private long held;
    private long peak;

    /** @param total the bytes that may be held at once */
    BodyBudget(long total) {
        this.total = total;
    }

    /** Bytes of one request, held until closed. */
    final class Reservation implements AutoCloseable {
        private long bytes;

        private Reservation(long bytes) {
            this.bytes = bytes;
        }

        /** Releases the bytes. Idempotent. */
        @Override
        public void close() {
            synchronized (BodyBudget.this) {
                held -= bytes;
                bytes = 0;
            }
        }
    }

    /**
     * @param bytes the bytes a body may take
     * @return the reservation, or null when the budget cannot hold it now
     */
    synchronized Reservation tryReserve(long bytes) {
        if (bytes > total - held) {
            return null;
        }
        held += bytes;
        peak = Math.max(peak, held);
        return new Reservation(bytes);
    }

    /** @return the bytes that may be held at once */
    long total() {
        return total;
    }

    /** @return the bytes reserved now */
    synchronized long held() {
        return held;
    }

    /** @return the most bytes ever reserved at once */
    synchronized long peak() {
        return peak;
    }
}
