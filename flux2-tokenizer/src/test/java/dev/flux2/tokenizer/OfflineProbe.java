package dev.flux2.tokenizer;

import dev.flux2.spi.TokenizedPrompt;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.ServerSocket;
import java.net.SocketAddress;
import java.net.URI;
import java.net.URL;
import java.net.URLConnection;
import java.net.URLStreamHandler;
import java.net.URLStreamHandlerFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Child-JVM entry point of {@link OfflineTokenizationTest}: installs two network guards, loads the tokenizer,
 * tokenizes one prompt and prints {@code key=value} lines for the parent to check.
 *
 * <ul>
 *   <li>A {@link URLStreamHandlerFactory} for {@code http}, {@code https} and {@code ftp}: every {@link URL} of these
 *       protocols created afterwards gets a handler that records the URL and refuses to connect. This catches
 *       {@code HttpURLConnection} use even with an explicit {@link Proxy#NO_PROXY}, which is how DJL 0.38.0 calls its
 *       telemetry and EC2 metadata endpoints (a {@link ProxySelector} alone never sees those).</li>
 *   <li>A {@link ProxySelector} that records every URI and routes it to a closed local port: plain
 *       {@code Socket.connect} asks it with {@code socket://} URIs, and with a single failing proxy there is no
 *       fallback to a direct connection. The child runs with {@code -Djava.net.useSystemProxies=false}.</li>
 * </ul>
 *
 * <p>Arguments: the tokenizer folder and the prompt.
 */
public final class OfflineProbe {

    private OfflineProbe() {}

    /** Records the URIs and sends everything to an unreachable proxy. */
    static final class RecordingProxySelector extends ProxySelector {
        private final List<String> attempts = new ArrayList<>();
        private final InetSocketAddress unreachable;

        RecordingProxySelector(InetSocketAddress unreachable) {
            this.unreachable = unreachable;
        }

        @Override
        public synchronized List<Proxy> select(URI uri) {
            attempts.add(uri.toString());
            Proxy.Type type = "socket".equalsIgnoreCase(uri.getScheme()) ? Proxy.Type.SOCKS : Proxy.Type.HTTP;
            return List.of(new Proxy(type, unreachable));
        }

        @Override
        public void connectFailed(URI uri, SocketAddress proxy, IOException failure) {
            // The attempt was already recorded in select(); failing is the intended outcome.
        }

        synchronized List<String> attempts() {
            return List.copyOf(attempts);
        }
    }

    /** Records every network URL and refuses to open it; other protocols keep their default handler. */
    static final class RefusingUrlHandlers implements URLStreamHandlerFactory {
        private static final Set<String> NETWORK_PROTOCOLS = Set.of("http", "https", "ftp");
        private final List<String> attempts;

        RefusingUrlHandlers(List<String> attempts) {
            this.attempts = attempts;
        }

        @Override
        public URLStreamHandler createURLStreamHandler(String protocol) {
            if (!NETWORK_PROTOCOLS.contains(protocol.toLowerCase(Locale.ROOT))) {
                return null;
            }
            return new URLStreamHandler() {
                @Override
                protected URLConnection openConnection(URL url) throws IOException {
                    return refuse(url);
                }

                @Override
                protected URLConnection openConnection(URL url, Proxy proxy) throws IOException {
                    return refuse(url);
                }
            };
        }

        private URLConnection refuse(URL url) throws IOException {
            synchronized (attempts) {
                attempts.add(url.toString());
            }
            throw new IOException("network access refused by OfflineProbe: " + url);
        }
    }

    /**
     * Runs the probe.
     *
     * @param args tokenizer folder, prompt
     * @throws IOException if the unreachable port cannot be chosen
     */
    public static void main(String[] args) throws IOException {
        List<String> urlAttempts = new ArrayList<>();
        URL.setURLStreamHandlerFactory(new RefusingUrlHandlers(urlAttempts));
        RecordingProxySelector selector =
                new RecordingProxySelector(new InetSocketAddress(InetAddress.getLoopbackAddress(), closedPort()));
        ProxySelector.setDefault(selector);

        try (Qwen3PromptTokenizer tokenizer = Qwen3PromptTokenizer.load(Path.of(args[0]), 512)) {
            TokenizedPrompt tokens = tokenizer.tokenize(args[1]);
            long[] real = Arrays.copyOf(tokens.inputIds(), tokens.realTokens());
            System.out.println(
                    "ids=" + Arrays.stream(real).mapToObj(Long::toString).collect(Collectors.joining(",")));
            System.out.println("padId=" + tokenizer.padId());
        }
        System.out.println("ai.djl.offline=" + System.getProperty("ai.djl.offline"));
        System.out.println("OPT_OUT_TRACKING=" + System.getProperty("OPT_OUT_TRACKING"));
        System.out.println("RUST_FLAVOR=" + System.getProperty("RUST_FLAVOR"));
        List<String> attempts = new ArrayList<>(selector.attempts());
        synchronized (urlAttempts) {
            attempts.addAll(urlAttempts);
        }
        System.out.println("attempts=" + String.join(" ", attempts));
    }

    /**
     * A loopback port nobody listens on. Inside an empty network namespace the loopback interface is down and
     * cannot be bound; then every address is unreachable and any port will do.
     */
    private static int closedPort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException loopbackDown) {
            return 9;
        }
    }
}
