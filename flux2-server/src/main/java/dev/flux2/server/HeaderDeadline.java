package dev.flux2.server;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bounds the total time a request's line and headers may take, not only the silence between bytes (Jetty's idle
 * timeout): a client that drips a header line every half second is never idle, and 16 of them held the old service.
 * A new connection must have a complete request head within {@code headerTimeout}; after an answer, a kept-alive
 * connection must start its next complete request within {@code idleTimeout + headerTimeout} (longer than that, it
 * was not silent, or the idle timeout would have closed it: it is dripping). Else it is closed.
 */
final class HeaderDeadline implements Connection.Listener {
    private static final Logger LOG = LoggerFactory.getLogger(HeaderDeadline.class);

    private final Scheduler scheduler;
    private final long firstNanos;
    private final long nextNanos;
    /** Requests whose head arrived, per open connection. */
    private final Map<Connection, AtomicLong> heads = new ConcurrentHashMap<>();

    HeaderDeadline(Scheduler scheduler, Duration headerTimeout, Duration idleTimeout) {
        this.scheduler = scheduler;
        this.firstNanos = headerTimeout.toNanos();
        this.nextNanos = headerTimeout.plus(idleTimeout).toNanos();
    }

    @Override
    public void onOpened(Connection connection) {
        heads.put(connection, new AtomicLong());
        arm(connection, 0, firstNanos);
    }

    @Override
    public void onClosed(Connection connection) {
        heads.remove(connection);
    }

    /** A request's head arrived on {@code connection} (called by the dispatcher). */
    void headArrived(Connection connection) {
        AtomicLong n = heads.get(connection);
        if (n != null) {
            n.incrementAndGet();
        }
    }

    /** The answer on {@code connection} was sent: its next request head must arrive in time. */
    void answered(Connection connection) {
        AtomicLong n = heads.get(connection);
        if (n != null) {
            arm(connection, n.get(), nextNanos);
        }
    }

    private void arm(Connection connection, long seen, long delayNanos) {
        scheduler.schedule(
                () -> {
                    AtomicLong n = heads.get(connection);
                    if (n != null && n.get() == seen && connection.getEndPoint().isOpen()) {
                        LOG.debug("closing {}: no complete request head in time", connection.getEndPoint());
                        connection.getEndPoint().close();
                    }
                },
                delayNanos,
                TimeUnit.NANOSECONDS);
    }
}
