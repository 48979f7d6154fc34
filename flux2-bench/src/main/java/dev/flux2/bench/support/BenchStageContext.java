package dev.flux2.bench.support;

import dev.flux2.api.Stage;
import dev.flux2.spi.StageContext;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A stage context for benchmarks: never cancelled, ignores progress, and sums the time spent inside the runtime.
 * Thread-safe.
 */
public final class BenchStageContext implements StageContext {
    private final AtomicLong runtimeNanos = new AtomicLong();

    @Override
    public boolean isCancelled() {
        return false;
    }

    @Override
    public void throwIfCancelled(String where) {
        // Benchmarks are never cancelled.
    }

    @Override
    public AutoCloseable onCancel(Runnable abort) {
        return () -> {};
    }

    @Override
    public void advance(Stage stage, int completed, int total) {
        // Progress is not measured here.
    }

    @Override
    public void recordRuntimeNanos(long nanos) {
        runtimeNanos.addAndGet(nanos);
    }

    /** @return nanoseconds spent inside the runtime so far */
    public long runtimeNanos() {
        return runtimeNanos.get();
    }
}
