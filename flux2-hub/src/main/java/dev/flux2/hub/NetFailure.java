package dev.flux2.hub;

import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import javax.net.ssl.SSLException;

/**
 * Says which step of reaching the hub failed (name resolution, connection refused, timeout, TLS), in words, instead
 * of a bare {@code java.net.ConnectException}, and what a user without network can do instead.
 */
final class NetFailure {
    /** What to do without network: named in the first failed request's message. */
    static final String WAY_FORWARD = "without network: use a model already in the hub cache with --offline"
            + " (HF_HUB_OFFLINE=1), point HF_ENDPOINT at a reachable mirror, or fetch the model on a machine with"
            + " network (`flux2 download --dir DIR`), copy DIR here and pass it as --model DIR; the synthetic demo"
            + " bundle (README, \"Try it without the 5 GB download\") needs no download at all";

    private NetFailure() {}

    /**
     * @param url the URL asked for
     * @param failure the failure (its cause chain is searched)
     * @return e.g. {@code cannot resolve the host name example.org (DNS)}, or the failure's own words when it is
     *     none of the known kinds
     */
    static String describe(URI url, Throwable failure) {
        String host = url.getHost() + (url.getPort() >= 0 ? ":" + url.getPort() : "");
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof UnknownHostException || t instanceof UnresolvedAddressException) {
                return "cannot resolve the host name " + url.getHost() + " (name resolution failed: no DNS or no"
                        + " network?)";
            }
            if (t instanceof HttpConnectTimeoutException) {
                return "connecting to " + host + " timed out (a firewall, or no route?)";
            }
            if (t instanceof HttpTimeoutException) {
                return host + " accepted the connection but sent no answer in time";
            }
            if (t instanceof NoRouteToHostException) {
                return "no route to " + host;
            }
            if (t instanceof ConnectException) {
                return "the connection to " + host + " was refused (nothing listens there, or a firewall)";
            }
            if (t instanceof SSLException) {
                return "the TLS handshake with " + host + " failed (" + Redact.text(String.valueOf(t.getMessage()))
                        + "; a proxy that intercepts TLS, or a wrong clock?)";
            }
        }
        return Redact.text(String.valueOf(failure));
    }

    /**
     * @param failure a failed request's exception
     * @return whether the hub was never reached (so that the way forward without network is worth naming)
     */
    static boolean unreachable(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof UnknownHostException
                    || t instanceof UnresolvedAddressException
                    || t instanceof HttpConnectTimeoutException
                    || t instanceof ConnectException
                    || t instanceof SSLException) {
                return true;
            }
        }
        return false;
    }

    /**
     * @param failure a failed read or request
     * @return whether it was the calling thread's interrupt (a cancellation), not the network: the flag is set, or
     *     the JDK turned it into an exception
     */
    static boolean cancellation(Throwable failure) {
        if (Thread.currentThread().isInterrupted()) {
            return true;
        }
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof InterruptedException
                    || t instanceof java.nio.channels.ClosedByInterruptException
                    || t instanceof java.nio.channels.FileLockInterruptionException
                    || t.getClass() == java.io.InterruptedIOException.class) {
                return true;
            }
        }
        return false;
    }
}
