package dev.flux2.cli;

import dev.flux2.api.CancellationToken;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Makes Ctrl-C (SIGINT) and SIGTERM cancel the running generation cleanly, and exit with 130 once it has unwound.
 *
 * <p>Why signal handlers and not only a shutdown hook: ONNX Runtime's Java API registers its own shutdown hook
 * ({@code OrtEnvironment$OrtEnvCloser}) that releases the native environment. Shutdown hooks run concurrently, so
 * a hook that waits for the generation lets ONNX Runtime free its environment under a running session call, and
 * the process aborts ({@code unique_ptr<Environment>} assertion, exit 134). So SIGINT/SIGTERM only cancel the
 * token here; the command unwinds, closes the pipeline and returns 130 through a normal exit, when no native call
 * is in flight any more. A second signal halts at once. A shutdown hook remains for other shutdowns
 * ({@code System.exit} elsewhere, or a JVM where the handlers cannot be installed): it cancels and waits up to a
 * grace period, which narrows but cannot close that race.
 */
final class CancelOnShutdown implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CancelOnShutdown.class);
    private static final int EXIT_CANCELLED = 130;
    private static final List<String> SIGNALS = List.of("INT", "TERM");

    private final CancellationToken token;
    private final PrintStream err;
    private final Duration grace;
    private final CountDownLatch unwound = new CountDownLatch(1);
    private final AtomicBoolean signalled = new AtomicBoolean();
    private final Thread hook;
    private final List<Restorer> previousHandlers = new ArrayList<>();

    private CancelOnShutdown(CancellationToken token, PrintStream err, Duration grace) {
        this.token = token;
        this.err = err;
        this.grace = grace;
        this.hook = new Thread(this::onShutdown, "flux2-cancel-on-shutdown");
    }

    /**
     * @param token the token the generation watches
     * @param err where to say that the generation is being cancelled
     * @param grace how long the shutdown hook waits for the generation to unwind
     * @return the installed guard
     */
    static CancelOnShutdown install(CancellationToken token, PrintStream err, Duration grace) {
        CancelOnShutdown guard = new CancelOnShutdown(token, err, grace);
        for (String name : SIGNALS) {
            guard.handle(name);
        }
        Runtime.getRuntime().addShutdownHook(guard.hook);
        return guard;
    }

    private void handle(String name) {
        try {
            Signal signal = new Signal(name);
            SignalHandler previous = Signal.handle(signal, s -> onSignal());
            previousHandlers.add(new Restorer(signal, previous));
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            // The signal is unknown on this OS or reserved by the JVM (-Xrs): the shutdown hook still cancels.
            LOG.debug("cannot handle SIG{} ({}); relying on the shutdown hook", name, e.getMessage());
        }
    }

    /** The signal handler body; package-private so tests can call it without sending a signal. */
    void onSignal() {
        if (!signalled.compareAndSet(false, true)) {
            err.println("flux2: interrupted again, exiting now");
            err.flush();
            Runtime.getRuntime().halt(EXIT_CANCELLED);
        }
        err.println();
        err.println("flux2: interrupted, cancelling the generation (press Ctrl-C again to exit at once)...");
        err.flush();
        token.cancel();
    }

    /** The shutdown hook body; package-private so tests can run it without shutting the JVM down. */
    void onShutdown() {
        if (unwound.getCount() == 0) {
            return;
        }
        err.println();
        err.println("flux2: shutting down, cancelling the generation...");
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

    /** Signals that the command has unwound; restores the signal handlers and removes the hook. */
    @Override
    public void close() {
        unwound.countDown();
        for (Restorer r : previousHandlers) {
            Signal.handle(r.signal(), r.previous());
        }
        previousHandlers.clear();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // The hook is running: it is waiting for the countDown above and will return by itself.
            err.flush();
        }
    }

    private record Restorer(Signal signal, SignalHandler previous) {}
}
