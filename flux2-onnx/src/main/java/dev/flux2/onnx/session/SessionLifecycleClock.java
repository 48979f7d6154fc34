package dev.flux2.onnx.session;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Process-wide time spent creating and closing ONNX Runtime sessions (inside {@code OrtEnvironment.createSession}
 * and {@code OrtSession.close}). Under {@link dev.flux2.api.MemoryPolicy#SEQUENTIAL} every generation pays it, outside
 * {@code OrtSession.run} but in native code, so a profile subtracts it from the pipeline's {@code total − runtime}
 * to separate the SDK's Java work from the runtime's session lifecycle. Thread-safe; monotonic.
 */
public final class SessionLifecycleClock {
    private static final AtomicLong CREATE_NANOS = new AtomicLong();
    private static final AtomicLong CLOSE_NANOS = new AtomicLong();

    private SessionLifecycleClock() {}

    /** @return nanoseconds spent inside session creation since the JVM started */
    public static long createNanos() {
        return CREATE_NANOS.get();
    }

    /** @return nanoseconds spent inside session close since the JVM started */
    public static long closeNanos() {
        return CLOSE_NANOS.get();
    }

    static void created(long nanos) {
        CREATE_NANOS.addAndGet(nanos);
    }

    static void closed(long nanos) {
        CLOSE_NANOS.addAndGet(nanos);
    }
}
