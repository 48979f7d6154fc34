package dev.flux2.onnx.session;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the ONNX Runtime sessions this backend currently holds open, process-wide. Tests use it to prove that a
 * memory policy, a cancellation or {@code close()} left no session behind. Thread-safe.
 */
public final class OpenSessionCounter {
    private static final AtomicInteger OPEN = new AtomicInteger();
    private static final AtomicLong CREATED = new AtomicLong();

    private OpenSessionCounter() {}

    /** @return the number of sessions opened and not yet closed */
    public static int current() {
        return OPEN.get();
    }

    /** @return the number of sessions created since the class was loaded (creation is what SEQUENTIAL avoids) */
    public static long created() {
        return CREATED.get();
    }

    static void opened() {
        CREATED.incrementAndGet();
        OPEN.incrementAndGet();
    }

    static void closed() {
        OPEN.decrementAndGet();
    }
}
