package dev.flux2.examples.cli;

import dev.flux2.api.CancellationToken;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Makes Ctrl-C (SIGINT, or any JVM shutdown) cancel the running generation cleanly: a shutdown hook cancels the
 * token and waits, up to a grace period, until the command has unwound and closed the pipeline (signalled by
 * {@link #close()}); the JVM then exits with 130. Install around the pipeline's lifetime, close after the pipeline.
 */
final class CancelOnShutdown implements AutoCloseable {
    private final CancellationToken token;
    private final PrintStream err;
    private final Duration grace;
    private final CountDownLatch unwound = new CountDownLatch(1);
    private final Thread hook;

    private CancelOnShutdown(CancellationToken token, PrintStream err, Duration grace) {
        this.token = token;
        this.err = err;
        this.grace = grace;
        this.hook = new Thread(this::onShutdown, "flux2-cancel-on-shutdown");
    }

    /**
     * @param token the token the generation watches
     * @param err where to say that the generation is being cancelled
     * @param grace how long the hook waits for the generation to unwind
     * @return the installed guard
     */
    static CancelOnShutdown install(CancellationToken token, PrintStream err, Duration grace) {
        CancelOnShutdown guard = new CancelOnShutdown(token, err, grace);
        Runtime.getRuntime().addShutdownHook(guard.hook);
        return guard;
    }

    /** The hook body; package-private so tests can run it without shutting the JVM down. */
    void onShutdown() {
        if (unwound.getCount() == 0) {
            return;
        }
        err.println();
        err.println("flux2: interrupted, cancelling the generation...");
        err.flush();
        token.cancel();
        try {
            if (!unwound.await(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                err.println("flux2: the generation did not stop within " + grace.toSeconds() + " s; exiting");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Signals that the command has unwound; removes the hook unless the JVM is already shutting down. */
    @Override
    public void close() {
        unwound.countDown();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // The hook is running (Ctrl-C): it is waiting for the countDown above and will return by itself.
            err.flush();
        }
    }
}
