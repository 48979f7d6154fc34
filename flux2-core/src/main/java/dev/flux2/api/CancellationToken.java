package dev.flux2.api;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Cancels a running generation from any thread. Pass it with the call ({@link GenerationControls#withCancellation}); calling
 * {@link #cancel()} stops the generation inside the running backend call where the runtime allows it (ONNX Runtime
 * checks between graph nodes) and at the latest between steps, after which {@code generate} throws
 * {@link GenerationCancelledException}. Thread-safe; a token cannot be reset.
 */
public final class CancellationToken {
    private final AtomicBoolean cancelled = new AtomicBoolean();
    private final List<Runnable> hooks = new CopyOnWriteArrayList<>();

    /** Creates a token that is not cancelled. */
    public CancellationToken() {
        // A token starts live; cancel() is the only transition.
    }

    /** Requests cancellation. Idempotent. */
    public void cancel() {
        if (cancelled.compareAndSet(false, true)) {
            for (Runnable hook : hooks) {
                hook.run();
            }
        }
    }

    /** @return whether {@link #cancel()} has been called */
    public boolean isCancelled() {
        return cancelled.get();
    }

    /**
     * Registers an action that runs once when the token is cancelled (immediately if it already is). Used by the
     * pipeline to abort a running backend call.
     *
     * @param hook the action; must be quick, idempotent (it may run twice when registration races cancellation)
     *     and must not throw
     * @return a handle whose {@code close()} unregisters the action
     */
    public AutoCloseable onCancel(Runnable hook) {
        hooks.add(hook);
        if (cancelled.get()) {
            hook.run();
        }
        return () -> hooks.remove(hook);
    }
}
