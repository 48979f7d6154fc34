package dev.flux2.onnx;

import dev.flux2.api.GenerationCancelledException;
import dev.flux2.api.Stage;
import dev.flux2.spi.StageContext;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/** A minimal {@link StageContext} for backend-level tests: a cancel flag with hooks, and a runtime clock. */
public final class TestStageContext implements StageContext {
    private final AtomicBoolean cancelled = new AtomicBoolean();
    private final List<Runnable> hooks = new CopyOnWriteArrayList<>();
    /** Every {@link #advance} call as "STAGE completed/total". */
    public final List<String> progress = new CopyOnWriteArrayList<>();
    /** Sum of the reported runtime. */
    public final AtomicLong runtimeNanos = new AtomicLong();

    /** Cancels, running every registered hook once. */
    public void cancel() {
        if (cancelled.compareAndSet(false, true)) {
            hooks.forEach(Runnable::run);
        }
    }

    /** @return the number of registered cancellation hooks */
    public int hooks() {
        return hooks.size();
    }

    @Override
    public boolean isCancelled() {
        return cancelled.get();
    }

    @Override
    public void throwIfCancelled(String where) {
        if (cancelled.get()) {
            throw new GenerationCancelledException("cancelled at " + where);
        }
    }

    @Override
    public AutoCloseable onCancel(Runnable abort) {
        hooks.add(abort);
        if (cancelled.get()) {
            abort.run();
        }
        return () -> hooks.remove(abort);
    }

    @Override
    public void advance(Stage stage, int completed, int total) {
        progress.add(stage + " " + completed + "/" + total);
    }

    @Override
    public void recordRuntimeNanos(long nanos) {
        runtimeNanos.addAndGet(nanos);
    }
}
