package dev.flux2.server.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.GenerationControls;
import dev.flux2.api.GenerationRequest;
import dev.flux2.server.ImageService;
import dev.flux2.server.ServiceConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Issue #24's HTTP classes on the server: what a web page can send cross-site without a preflight (text/plain and
 * form-encoded POSTs) is refused 415; a foreign Host (DNS rebinding) or Origin is refused 403 on a loopback server;
 * header lines dripped slowly cannot hold connections past the header deadline; overlong or invalid UTF-8 and lone
 * surrogates are refused 400; a non-loopback bind without a key is refused. Nothing of these reaches the generator.
 * Raw sockets on loopback, bounded loops.
 */
class ServerGuardTest {
    private final AtomicInteger generated = new AtomicInteger();

    private ServiceConfig.Builder config() {
        return ServiceConfig.builder()
                .port(0)
                .workers(1)
                .queueCapacity(1)
                .requestTimeout(Duration.ofSeconds(20))
                .idleTimeout(Duration.ofSeconds(5))
                .headerTimeout(Duration.ofSeconds(1))
                .maxConnections(64);
    }

    private ImageService start(ServiceConfig config) {
        return ImageService.start(
                (GenerationRequest r, GenerationControls controls) -> {
                    generated.incrementAndGet();
                    throw new IllegalStateException("no request of this test may generate");
                },
                config);
    }

    private static String post(String path, String host, String type, byte[] body, String extra) {
        return "POST " + path + " HTTP/1.1\r\nHost: " + host + "\r\n"
                + (type == null ? "" : "Content-Type: " + type + "\r\n") + extra + "Content-Length: " + body.length
                + "\r\nConnection: close\r\n\r\n";
    }

    private static String exchange(int port, String head, byte[] body) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(head.getBytes(StandardCharsets.ISO_8859_1));
            out.write(body);
            out.flush();
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void textPlainFormEncodedAndTypelessPostsAre415() throws Exception {
        try (ImageService service = start(config().build())) {
            byte[] body = "{\"prompt\": \"fox\"}".getBytes(StandardCharsets.UTF_8);
            for (String path : List.of("/v1/images", "/v1/images/generations", "/v1/images/edits")) {
                for (String type : new String[] {"text/plain", "application/x-www-form-urlencoded", null}) {
                    String r = exchange(service.port(), post(path, "127.0.0.1", type, body, ""), body);
                    assertTrue(r.startsWith("HTTP/1.1 415"), path + " " + type + ": " + r);
                    assertTrue(r.contains("\"code\":\"unsupported_media_type\""), r);
                }
            }
            assertEquals(0, generated.get());
        }
    }

    @Test
    void aForeignHostOrOriginIsRefusedOnALoopbackServer() throws Exception {
        try (ImageService service = start(config().build())) {
            byte[] body = "{\"prompt\": \"fox\"}".getBytes(StandardCharsets.UTF_8);
            String rebound = exchange(
                    service.port(),
                    post("/v1/images", "attacker.example:" + service.port(), "application/json", body, ""),
                    body);
            assertTrue(rebound.startsWith("HTTP/1.1 403") && rebound.contains("DNS rebinding"), rebound);
            String health = exchange(
                    service.port(),
                    "GET /health HTTP/1.1\r\nHost: rebind.example\r\nConnection: close\r\n\r\n",
                    new byte[0]);
            assertTrue(health.startsWith("HTTP/1.1 403"), health);
            String origin = exchange(
                    service.port(),
                    post(
                            "/v1/images",
                            "localhost:" + service.port(),
                            "application/json",
                            body,
                            "Origin: https://evil.example\r\n"),
                    body);
            assertTrue(origin.startsWith("HTTP/1.1 403") && origin.contains("forbidden_origin"), origin);
            // The names of this machine are served (curl sends Host: localhost:PORT).
            String ok = exchange(
                    service.port(),
                    "GET /health HTTP/1.1\r\nHost: localhost:" + service.port() + "\r\nConnection: close\r\n\r\n",
                    new byte[0]);
            assertTrue(ok.startsWith("HTTP/1.1 200"), ok);
            assertEquals(0, generated.get());
        }
    }

    @Test
    void overlongAndInvalidUtf8AndLoneSurrogatesAre400() throws Exception {
        try (ImageService service = start(config().build())) {
            List<byte[]> bodies = List.of(
                    // "/" as the overlong C0 AF
                    bytes("{\"prompt\": \"a", 0xC0, 0xAF, "b\"}"),
                    // an encoded surrogate (CESU), and a truncated sequence
                    bytes("{\"prompt\": \"", 0xED, 0xA0, 0x80, "\"}"),
                    bytes("{\"prompt\": \"x", 0xE2, 0x82, "\"}"),
                    "{\"prompt\": \"\\ud800 alone\"}".getBytes(StandardCharsets.US_ASCII));
            for (String path : List.of("/v1/images", "/v1/images/generations")) {
                for (byte[] body : bodies) {
                    String r = exchange(service.port(), post(path, "127.0.0.1", "application/json", body, ""), body);
                    assertTrue(r.startsWith("HTTP/1.1 400"), path + ": " + r);
                    assertTrue(r.contains("UTF-8") || r.contains("surrogate"), r);
                }
            }
            assertEquals(0, generated.get());
        }
    }

    @Test
    void headerLinesDrippedEveryHalfSecondDoNotHoldConnectionsPastTheDeadline() throws Exception {
        try (ImageService service =
                start(config().maxConnections(24).queueCapacity(0).workers(1).build())) {
            List<Socket> drippers = new ArrayList<>();
            try {
                for (int i = 0; i < 16; i++) {
                    Socket s = new Socket("127.0.0.1", service.port());
                    s.getOutputStream()
                            .write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n".getBytes(StandardCharsets.US_ASCII));
                    drippers.add(s);
                }
                long start = System.nanoTime();
                int closed = 0;
                // Each sends a header line every 0.5 s, never idle for the 5 s idle timeout; the 1 s header deadline
                // closes them all the same.
                while (closed < drippers.size() && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(6)) {
                    Thread.sleep(500);
                    closed = 0;
                    for (Socket s : drippers) {
                        try {
                            s.getOutputStream().write("X-Drip: 1\r\n".getBytes(StandardCharsets.US_ASCII));
                            s.getOutputStream().flush();
                        } catch (IOException e) {
                            closed++;
                        }
                    }
                }
                long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
                assertEquals(drippers.size(), closed, "every dripping connection closed by the header deadline");
                assertTrue(seconds < 5, "closed within " + seconds + " s, before the idle timeout");
                String health = exchange(
                        service.port(),
                        "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
                        new byte[0]);
                assertTrue(health.startsWith("HTTP/1.1 200"), health);
            } finally {
                for (Socket s : drippers) {
                    s.close();
                }
            }
        }
    }

    @Test
    void aNonLoopbackAddressWithoutAKeyIsRefusedUnlessAllowed() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> ServiceConfig.builder().host("0.0.0.0").build());
        assertTrue(
                e.getMessage().contains("0.0.0.0") && e.getMessage().contains("--allow-unauthenticated"),
                e.getMessage());
        ServiceConfig.builder().host("0.0.0.0").allowUnauthenticated(true).build();
        ServiceConfig keyed =
                ServiceConfig.builder().host("0.0.0.0").apiKey("k-1").build();
        assertTrue(!keyed.toString().contains("k-1"), "the key is not printed: " + keyed);
        IllegalArgumentException bad = assertThrows(
                IllegalArgumentException.class, () -> ServiceConfig.checkedApiKey("secret\u0007key", "FLUX2_API_KEY"));
        assertTrue(
                bad.getMessage().contains("FLUX2_API_KEY") && !bad.getMessage().contains("secret"), bad.getMessage());
        assertEquals("abc", ServiceConfig.checkedApiKey("\uFEFFabc\n", "file"));
    }

    private static byte[] bytes(Object... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Object p : parts) {
            if (p instanceof String s) {
                out.writeBytes(s.getBytes(StandardCharsets.US_ASCII));
            } else {
                out.write((Integer) p);
            }
        }
        return out.toByteArray();
    }
}
