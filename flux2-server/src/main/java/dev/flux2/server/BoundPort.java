package dev.flux2.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.util.Locale;
import java.util.Objects;

/**
 * A listening socket bound before the model loads, so that a busy port or an address that is not this machine's is
 * reported in milliseconds with its reason, not after a load of many seconds; handed to
 * {@link ImageService#start(dev.flux2.Flux2Pipeline, ServiceConfig, BoundPort)}, which serves on it. Closing it
 * before that releases the port.
 *
 * <pre>{@code
 * ServiceConfig config = ServiceConfig.builder().port(8080).build();   // checked: values, host resolved
 * try (BoundPort port = BoundPort.bind(config.address());               // refused here when the port is busy
 *         Flux2Pipeline pipeline = Flux2Pipeline.builder().model(dir).build();
 *         ImageService service = ImageService.start(pipeline, config, port)) { ... }
 * }</pre>
 */
public final class BoundPort implements AutoCloseable {
    private final InetSocketAddress address;
    private ServerSocketChannel channel;

    private BoundPort(InetSocketAddress address, ServerSocketChannel channel) {
        this.address = address;
        this.channel = channel;
    }

    /**
     * Binds the address as the server will (address reuse on, so a port in TIME_WAIT after a restart is not busy).
     *
     * @param address where to listen (port 0 picks a free port)
     * @return the bound socket
     * @throws UncheckedIOException naming the address and the reason (in use, not this machine's, not permitted)
     */
    public static BoundPort bind(InetSocketAddress address) {
        Objects.requireNonNull(address, "address");
        ServerSocketChannel channel = null;
        try {
            channel = ServerSocketChannel.open();
            channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            channel.bind(address);
            return new BoundPort(address, channel);
        } catch (IOException e) {
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException close) {
                    e.addSuppressed(close);
                }
            }
            throw new UncheckedIOException(
                    "cannot listen on " + address.getHostString() + ":" + address.getPort() + ": " + reason(e), e);
        }
    }

    private static String reason(IOException e) {
        String m = String.valueOf(e.getMessage());
        String lower = m.toLowerCase(Locale.ROOT);
        if (e instanceof BindException && lower.contains("in use")) {
            return "the address is already in use (another process listens on this port; choose another --port or"
                    + " stop that process)";
        }
        if (lower.contains("cannot assign requested address")) {
            return "the address is not one of this machine's (Cannot assign requested address)";
        }
        if (lower.contains("permission denied")) {
            return "permission denied (ports below 1024 need privileges; choose a port of 1024 or more)";
        }
        return m;
    }

    /** @return the address asked for */
    public InetSocketAddress address() {
        return address;
    }

    /** @return the port the socket is bound to (the chosen one when port 0 was asked for) */
    public synchronized int port() {
        if (channel == null) {
            throw new IllegalStateException("the socket was closed or handed to the server");
        }
        try {
            return ((InetSocketAddress) channel.getLocalAddress()).getPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return the channel, now the server's to close @throws IllegalStateException when already taken or closed */
    synchronized ServerSocketChannel take() {
        if (channel == null) {
            throw new IllegalStateException("the socket was closed or already handed to a server");
        }
        ServerSocketChannel c = channel;
        channel = null;
        return c;
    }

    /** Releases the port unless a server took it. Idempotent. */
    @Override
    public synchronized void close() {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot close the socket on " + address, e);
            } finally {
                channel = null;
            }
        }
    }
}
