package dev.flux2.spark;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Closes this JVM's pipelines when it receives SIGTERM or SIGINT, before the JVM starts to exit.
 *
 * <p>Why: a cluster manager stops an executor with SIGTERM (and Ctrl-C stops {@code run-local.sh}). The JVM then
 * runs its shutdown hooks concurrently: Spark's, which stops the executor (and so {@link Flux2SparkPlugin}), and ONNX
 * Runtime's, which releases the native environment, possibly under a generation still running. This handler runs
 * first, on the signal: it cancels the running generations and closes the pipelines, then hands the signal on to
 * the handler it replaced (Spark's, then the JVM's, which starts the exit). By then no native call is in flight.
 * Installed once per JVM by the plugin's executor side.
 */
final class ExecutorSignals {
    private static final Logger LOG = LoggerFactory.getLogger(ExecutorSignals.class);
    private static final List<String> SIGNALS = List.of("TERM", "INT");
    private static final AtomicBoolean INSTALLED = new AtomicBoolean();
    private static volatile Signal received;

    private ExecutorSignals() {}

    /** Installs the handlers, once per JVM; a signal the platform does not offer is skipped. */
    static void install() {
        if (!INSTALLED.compareAndSet(false, true)) {
            return;
        }
        for (String name : SIGNALS) {
            try {
                Signal signal = new Signal(name);
                SignalHandler[] previous = new SignalHandler[1];
                previous[0] = Signal.handle(signal, s -> onSignal(s, previous[0]));
            } catch (IllegalArgumentException | UnsupportedOperationException e) {
                // Unknown on this OS, or reserved by the JVM (-Xrs): the plugin's shutdown still closes the pipelines.
                LOG.debug("cannot handle SIG{}: {}", name, e.getMessage());
            }
        }
    }

    /** @return whether the handlers were installed in this JVM */
    static boolean installed() {
        return INSTALLED.get();
    }

    /** @return the signal this JVM received (TERM or INT), if any */
    static Optional<Signal> received() {
        return Optional.ofNullable(received);
    }

    /** Forgets a received signal (for tests that call {@link #onSignal} without exiting). */
    static void clearReceived() {
        received = null;
    }

    /**
     * The handler body; package-private so tests can run it without sending a signal.
     *
     * @param signal the signal received
     * @param previous the handler it replaced, which gets the signal next
     */
    static void onSignal(Signal signal, SignalHandler previous) {
        received = signal;
        if (ExecutorPipelines.open() > 0) {
            LOG.warn(
                    "SIG{} received: cancelling and closing the flux2 pipelines before the JVM exits",
                    signal.getName());
        }
        ExecutorPipelines.closeAll();
        if (previous == SignalHandler.SIG_DFL) {
            // Nobody else handles it (a JVM run with -Xrs): end as the default action would.
            System.exit(128 + signal.getNumber());
        } else if (previous != null && previous != SignalHandler.SIG_IGN) {
            previous.handle(signal);
        }
    }
}
