package dev.flux2.onnx.session;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the ONNX Runtime sessions this backend currently holds open, process-wide. Tests use it to prove that a
 * memory policy, a cancellation or {@code close()} left no session behind. Thread-safe.
 */
public final class OpenSessionCounter {
    private static final AtomicInteger OPEN = new AtomicInteger();

    private OpenSessionCounter() {}

    /** @return the number of sessions opened and not yet closed */
    public static int current() {
        return OPEN.get();
    }

    static void opened() {
        OPEN.incrementAndGet();
    }

    static void closed() {
        OPEN.decrementAndGet();
    }
}
