package dev.flux2.server.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.GeneratedImage;
import dev.flux2.api.GenerationCancelledException;
import dev.flux2.api.GenerationMetadata;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.api.StageTimings;
import dev.flux2.server.ImageGenerator;
import dev.flux2.server.ImageService;
import dev.flux2.server.ServiceConfig;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Failure class "the HTTP service can be frozen": slow clients (partial headers, partial bodies) cannot keep
 * {@code /health} or a well-behaved POST from being answered; a huge declared {@code Content-Length} is 413 before any
 * body byte; mistyped JSON and requests beyond the limits are 400 naming the field or limit; a request whose client
 * hung up is dropped from the queue (it never runs) or its generation cancelled. Raw sockets on loopback, bounded
 * loops, timeouts of a second or two.
 */
class ServiceAbuseTest {
    private static final int SLOW_CLIENTS = 24;
    private static final Duration IDLE = Duration.ofSeconds(2);
    private static final Duration BODY = Duration.ofSeconds(1);

    private static ServiceConfig.Builder config() {
        return ServiceConfig.builder()
                .port(0)
                .workers(1)
                .queueCapacity(1)
                .requestTimeout(Duration.ofSeconds(20))
                .idleTimeout(IDLE)
                .bodyTimeout(BODY)
                .maxConnections(64)
                .maxBodyBytes(4096);
    }

    @Test
    void slowClientsDoNotFreezeHealthOrWellBehavedRequests() throws Exception {
        try (ImageService service = ImageService.start((r, controls) -> ServiceAbuseTest.image(r), config().build())) {
            List<Socket> slow = new ArrayList<>();
            try {
                for (int i = 0; i < SLOW_CLIENTS; i++) {
                    Socket s = new Socket("127.0.0.1", service.port());
                    String partial = i % 2 == 0
                            ? "POST /v1/images HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{\"prom"
                            : "POST /v1/images HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le";
                    s.getOutputStream().write(partial.getBytes(StandardCharsets.US_ASCII));
                    s.getOutputStream().flush();
                    slow.add(s);
                }
                long start = System.nanoTime();
                String health = exchange(
                        service.port(), "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
                assertTrue(health.startsWith("HTTP/1.1 200"), health);
                assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(2), "health answered within 2 s");
                String post = exchange(service.port(), post("{\"prompt\": \"fox\", \"width\": 32, \"height\": 32}"));
                assertTrue(post.startsWith("HTTP/1.1 200"), post.substring(0, Math.min(200, post.length())));
                // Slow bodies are answered 408 once the body deadline passes; silent headers are closed on idle.
                for (int i = 0; i < slow.size(); i++) {
                    String answer = readAll(slow.get(i), IDLE.multipliedBy(3));
                    if (i % 2 == 0) {
                        assertTrue(answer.startsWith("HTTP/1.1 408"), "slow body " + i + ": " + answer);
                    } else {
                        assertTrue(
                                answer.isEmpty() || answer.startsWith("HTTP/1.1 4"),
                                "slow header " + i + ": " + answer);
                    }
                }
            } finally {
                for (Socket s : slow) {
                    s.close();
                }
            }
        }
    }

    @Test
    void aHugeDeclaredLengthIs413BeforeAnyBodyByte() throws Exception {
        try (ImageService service = ImageService.start((r, controls) -> ServiceAbuseTest.image(r), config().build())) {
            String r = exchange(
                    service.port(),
                    "POST /v1/images HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                            + "Content-Length: 99999999999\r\n\r\n");
            assertTrue(r.startsWith("HTTP/1.1 413"), r);
            assertTrue(r.contains("99999999999"), r);
        }
    }

    @Test
    void mistypedJsonAndRequestsBeyondTheLimitsAre400NamingTheFieldOrLimit() throws Exception {
        try (ImageService service = ImageService.start((r, controls) -> ServiceAbuseTest.image(r), config().build())) {
            Map<String, String> cases = Map.of(
                    "{\"prompt\": 5}", "'prompt' must be a string",
                    "{\"prompt\": \"x\", \"width\": \"512\"}", "'width' must be an integer",
                    "{\"prompt\": \"x\", \"width\": 512.5}", "'width' must be an integer",
                    "{\"prompt\": \"x\", \"seed\": true}", "'seed' must be an integer",
                    "{\"prompt\": \"x\", \"prompt\": \"y\"}", "Duplicate field 'prompt'",
                    "{\"prompt\": \"x\", \"steps\": 100000000}", "maxSteps",
                    "{\"prompt\": \"x\", \"width\": 16384, \"height\": 16384}", "maxSide");
            for (Map.Entry<String, String> c : cases.entrySet()) {
                String r = exchange(service.port(), post(c.getKey()));
                assertTrue(r.startsWith("HTTP/1.1 400"), c.getKey() + " -> " + r);
                assertTrue(r.contains(c.getValue()), c.getKey() + " -> " + r);
            }
        }
    }

    @Test
    void aQueuedRequestWhoseClientHungUpNeverRuns() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(1);
        AtomicInteger calls = new AtomicInteger();
        ImageGenerator blocking = (r, controls) -> {
            calls.incrementAndGet();
            started.countDown();
            await(release);
            return image(r);
        };
        try (ImageService service = ImageService.start(blocking, config().build())) {
            try (Socket first = new Socket("127.0.0.1", service.port())) {
                send(first, post("{\"prompt\": \"first\"}"));
                assertTrue(started.await(5, TimeUnit.SECONDS), "the first generation runs");
                try (Socket queued = new Socket("127.0.0.1", service.port())) {
                    send(queued, post("{\"prompt\": \"queued\"}"));
                    waitFor(() -> health(service).contains("\"waiting\":1"));
                }
                waitFor(() -> health(service).contains("\"abandoned\":1"));
                release.countDown();
                String answer = readAll(first, Duration.ofSeconds(5));
                assertTrue(answer.startsWith("HTTP/1.1 200"), answer.substring(0, Math.min(100, answer.length())));
            }
            waitFor(() -> health(service).contains("\"waiting\":0"));
            assertEquals(1, calls.get(), "the abandoned request never reached the generator");
        }
    }

    @Test
    void aRunningGenerationWhoseClientHungUpIsCancelled() throws Exception {
        CountDownLatch cancelled = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(1);
        ImageGenerator untilCancelled = (r, controls) -> {
            started.countDown();
            CountDownLatch seen = new CountDownLatch(1);
            controls.cancellation().orElseThrow().onCancel(seen::countDown);
            await(seen);
            cancelled.countDown();
            throw new GenerationCancelledException("cancelled");
        };
        try (ImageService service = ImageService.start(untilCancelled, config().build())) {
            try (Socket client = new Socket("127.0.0.1", service.port())) {
                send(client, post("{\"prompt\": \"leaving\"}"));
                assertTrue(started.await(5, TimeUnit.SECONDS));
            }
            assertTrue(cancelled.await(5, TimeUnit.SECONDS), "the generation saw the cancellation");
            waitFor(() -> health(service).contains("\"abandoned\":1")
                    && health(service).contains("\"running\":0"));
        }
    }

    private static String post(String json) {
        byte[] body = json.getBytes(StandardCharsets.UTF_8);
        return "POST /v1/images HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nConnection: close\r\n"
                + "Content-Length: " + body.length + "\r\n\r\n" + json;
    }

    private static String health(ImageService service) {
        try {
            String r = exchange(service.port(), "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
            return r.replace(" ", "");
        } catch (IOException e) {
            return e.toString();
        }
    }

    private static String exchange(int port, String request) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            send(s, request);
            return readAll(s, Duration.ofSeconds(5));
        }
    }

    private static void send(Socket s, String request) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write(request.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /** Reads until the server closes or {@code limit} passes (a bounded wait). */
    private static String readAll(Socket s, Duration limit) throws IOException {
        s.setSoTimeout(200);
        long deadline = System.nanoTime() + limit.toNanos();
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        InputStream in = s.getInputStream();
        byte[] chunk = new byte[8192];
        while (System.nanoTime() < deadline) {
            try {
                int n = in.read(chunk);
                if (n < 0) {
                    break;
                }
                buf.write(chunk, 0, n);
                String text = buf.toString(StandardCharsets.ISO_8859_1);
                if (complete(text)) {
                    break;
                }
            } catch (SocketTimeoutException e) {
                // keep waiting until the deadline
            } catch (IOException e) {
                break;
            }
        }
        return buf.toString(StandardCharsets.ISO_8859_1);
    }

    /** A whole response: headers and as many body bytes as Content-Length says. */
    private static boolean complete(String text) {
        int end = text.indexOf("\r\n\r\n");
        if (end < 0) {
            return false;
        }
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("(?i)content-length: *(\\d+)").matcher(text.substring(0, end));
        return m.find() && text.length() - end - 4 >= Integer.parseInt(m.group(1));
    }

    private static void waitFor(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "condition not reached within 10 s");
            Thread.sleep(50);
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(20, TimeUnit.SECONDS)) {
                throw new IllegalStateException("latch not released");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static GenerationResult image(GenerationRequest r) {
        int w = r.width().orElse(32);
        int h = r.height().orElse(32);
        BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
        StageTimings t = new StageTimings(Map.of(), Duration.ofMillis(1), Duration.ofMillis(1));
        GenerationMetadata m = new GenerationMetadata(
                r.prompt(), OptionalLong.of(1), 4, 4, w, h, 1, OptionalDouble.empty(), 0, false, 0, "fake", t);
        return new GenerationResult(List.of(new GeneratedImage(img, m)), t);
    }
}
