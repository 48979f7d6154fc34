package dev.flux2.onnx.session;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Use of one session for the duration of a stage. Closing the lease hands the session back to the
 * {@link SessionCache}, which closes it (SEQUENTIAL) or keeps it (RESIDENT). Idempotent; not thread-safe.
 */
public final class SessionLease implements AutoCloseable {
    private final ManagedSession session;
    private final Runnable release;
    private final AtomicBoolean released = new AtomicBoolean();

    SessionLease(ManagedSession session, Runnable release) {
        this.session = session;
        this.release = release;
    }

    /** @return the session (valid until this lease is closed) */
    public ManagedSession session() {
        return session;
    }

    /** Hands the session back. Idempotent. */
    @Override
    public void close() {
        if (released.compareAndSet(false, true)) {
            release.run();
        }
    }
}
