package dev.flux2.hub;

import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Aborts one transfer that stops receiving data, or that is still running at its deadline. {@code java.net.http}
 * has no read timeout once the response headers have arrived, so a silent connection would block forever, and a
 * dripping one (a byte now and then) would never trip a stall timeout: this closes the body stream and interrupts
 * the reading thread when no progress was reported for the stall timeout, or when the deadline passes. One
 * instance per transfer.
 */
final class StallWatchdog implements AutoCloseable {
    private final Closeable body;
    private final Thread reader;
    private final long stallNanos;
    private final long deadline;
    private final Duration stallTimeout;
    private final ScheduledFuture<?> task;
    private long lastProgress;
    private boolean active = true;
    private boolean fired;
    private boolean late;
    private boolean cancelled;

    StallWatchdog(ScheduledExecutorService scheduler, Duration stallTimeout, Closeable body) {
        this(scheduler, stallTimeout, Long.MAX_VALUE, body);
    }

    /**
     * @param scheduler runs the checks
     * @param stallTimeout the longest silence
     * @param deadline {@link System#nanoTime()} by which the transfer must be complete, or {@link Long#MAX_VALUE}
     * @param body what to close when it fires
     */
    StallWatchdog(ScheduledExecutorService scheduler, Duration stallTimeout, long deadline, Closeable body) {
        this.body = body;
        this.reader = Thread.currentThread();
        this.stallNanos = stallTimeout.toNanos();
        this.stallTimeout = stallTimeout;
        this.deadline = deadline;
        this.lastProgress = System.nanoTime();
        long period = Math.max(10, Math.min(1000, stallTimeout.toMillis() / 4));
        this.task = scheduler.scheduleAtFixedRate(this::check, period, period, TimeUnit.MILLISECONDS);
    }

    /** Records that bytes arrived. */
    synchronized void progress() {
        lastProgress = System.nanoTime();
    }

    /** @return whether this watchdog aborted the transfer */
    synchronized boolean fired() {
        return fired;
    }

    /** @return why it fired ({@code no data arrived for …} or {@code not complete at the deadline}), or null */
    synchronized String reason() {
        if (!fired) {
            return null;
        }
        return late
                ? "the time limit was reached while data was still arriving"
                : "no data arrived for " + stallTimeout.toMillis() + " ms";
    }

    /** @return whether the reading thread was interrupted (a cancellation) and the body closed for it */
    synchronized boolean cancelled() {
        return cancelled;
    }

    private void check() {
        if (active && !fired && !cancelled && reader.isInterrupted()) {
            // The JDK's body stream does not always wake up on its reader's interrupt: close it for the reader.
            synchronized (this) {
                cancelled = true;
            }
            closeBody();
            return;
        }
        synchronized (this) {
            long now = System.nanoTime();
            boolean stalled = now - lastProgress >= stallNanos;
            boolean pastDeadline = deadline != Long.MAX_VALUE && now - deadline >= 0;
            if (!active || fired || !stalled && !pastDeadline) {
                return;
            }
            fired = true;
            late = !stalled;
            // Interrupt under the lock so that close() cannot have returned yet: the reader is still transferring.
            reader.interrupt();
        }
        closeBody();
    }

    private void closeBody() {
        try {
            body.close();
        } catch (IOException e) {
            // The transfer is being abandoned; the reader reports the stall, this close only frees the connection.
            org.slf4j.LoggerFactory.getLogger(StallWatchdog.class).debug("closing a stalled body failed", e);
        }
    }

    /** Stops watching; clears the interrupt this watchdog may have set on the calling (reader) thread. */
    @Override
    public void close() {
        boolean clear;
        synchronized (this) {
            active = false;
            clear = fired;
        }
        task.cancel(false);
        if (clear) {
            Thread.interrupted();
        }
    }
}
