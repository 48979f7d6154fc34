package dev.flux2.server;

import java.util.concurrent.atomic.AtomicLong;

/** Counters of the service since start, reported by {@code GET /health}. Thread-safe. */
final class ServiceStats {
    final AtomicLong running = new AtomicLong();
    final AtomicLong waiting = new AtomicLong();
    final AtomicLong completed = new AtomicLong();
    final AtomicLong failed = new AtomicLong();
    final AtomicLong cancelled = new AtomicLong();
    final AtomicLong rejected = new AtomicLong();
    final AtomicLong timedOut = new AtomicLong();
    /** Requests whose client hung up before the answer: dropped from the queue, or their generation cancelled. */
    final AtomicLong abandoned = new AtomicLong();
}
