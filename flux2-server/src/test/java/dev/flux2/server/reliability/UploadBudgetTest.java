package dev.flux2.server.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.awt.image.BufferedImage;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;

/**
 * Issue #33: concurrent uploads just under {@code --max-upload} exhausted the server's heap (Jetty 500s, an
 * unrelated generation failed) because every upload was read whole before any queue limit. The server runs in its
 * own JVM with a 64 MiB heap; 16 clients upload 3 MiB each at once (about 250 MiB had they all been buffered the old
 * way): every answer is 200 or 429 (never 500), {@code /health} shows that the bodies held at once stayed within the
 * budget, and a generation afterwards succeeds. And a full queue answers an upload 429 before its body is sent.
 */
class UploadBudgetTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_UPLOAD = 4 << 20;
    private static final int UPLOADS = 16;

    @Test
    void concurrentLargeUploadsOnASmallHeapAreBoundedAndNothingFails() throws Exception {
        Process server = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx64m",
                        "-XX:+ExitOnOutOfMemoryError",
                        "-cp",
                        System.getProperty("java.class.path"),
                        SmallHeapServer.class.getName(),
                        Integer.toString(MAX_UPLOAD),
                        "200",
                        "4")
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        try {
            BufferedReader out =
                    new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
            String[] first = out.readLine().split(" ");
            int port = Integer.parseInt(first[1]);
            long budget = Long.parseLong(first[3]);
            assertTrue(budget < (long) UPLOADS * 3 << 20, "the budget " + budget + " is below the uploads' total");
            HttpClient http =
                    HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            byte[] body = multipart(paddedPng(3 << 20));
            java.util.concurrent.ExecutorService clients = java.util.concurrent.Executors.newFixedThreadPool(UPLOADS);
            List<java.util.concurrent.Future<String>> answers = new ArrayList<>();
            for (int i = 0; i < UPLOADS; i++) {
                answers.add(clients.submit(() -> upload(port, body)));
            }
            Map<Integer, Integer> statuses = new TreeMap<>();
            for (java.util.concurrent.Future<String> a : answers) {
                String r = a.get(120, TimeUnit.SECONDS);
                int status = Integer.parseInt(r.substring(9, 12));
                statuses.merge(status, 1, Integer::sum);
                assertTrue(status == 200 || status == 429, r.substring(0, Math.min(300, r.length())));
                if (status == 429) {
                    assertTrue(r.contains("\"rate_limit_error\""), r);
                }
            }
            clients.shutdown();
            assertTrue(statuses.getOrDefault(200, 0) >= 1, "some uploads were generated: " + statuses);
            JsonNode health = JSON.readTree(http.send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body());
            long peak = health.get("body_bytes_peak").asLong();
            assertEquals(budget, health.get("body_bytes_budget").asLong());
            assertTrue(peak >= body.length && peak <= budget, "peak " + peak + " of budget " + budget);
            assertEquals(0, health.get("body_bytes_held").asLong());
            assertEquals(0, health.get("failed").asLong(), health.toString());
            HttpResponse<String> after = http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/images/generations"))
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString("{\"prompt\": \"a fox\", \"size\": \"32x32\"}"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, after.statusCode(), after.body());
            assertTrue(server.isAlive(), "the server JVM is still running (no OutOfMemoryError)");
        } finally {
            server.getOutputStream().close();
            if (!server.waitFor(20, TimeUnit.SECONDS)) {
                server.destroyForcibly();
            }
        }
    }

    @Test
    void aFullQueueAnswersAnUpload429BeforeItsBodyIsSent() throws Exception {
        Process server = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        SmallHeapServer.class.getName(),
                        Integer.toString(MAX_UPLOAD),
                        "5000",
                        "0")
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        try {
            BufferedReader out =
                    new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
            int port = Integer.parseInt(out.readLine().split(" ")[1]);
            HttpClient http =
                    HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            // Occupies the one worker for 5 s (queue 0).
            CompletableFuture<HttpResponse<String>> busy = http.sendAsync(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/images/generations"))
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString("{\"prompt\": \"a fox\", \"size\": \"32x32\"}"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (JSON.readTree(http.send(
                                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health"))
                                                    .build(),
                                            HttpResponse.BodyHandlers.ofString())
                                    .body())
                            .get("running")
                            .asInt()
                    == 0) {
                assertTrue(System.nanoTime() < deadline, "the first generation did not start");
                Thread.sleep(20);
            }
            try (Socket s = new Socket("127.0.0.1", port)) {
                s.setSoTimeout(3000);
                OutputStream o = s.getOutputStream();
                // The headers of a 3 MiB upload, and not one byte of its body.
                o.write(("POST /v1/images/edits HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data;"
                                + " boundary=" + BOUNDARY + "\r\nContent-Length: " + (3 << 20) + "\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                o.flush();
                InputStream in = s.getInputStream();
                String answer = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(answer.startsWith("HTTP/1.1 429"), answer);
                assertTrue(answer.contains("Retry-After: 1") && answer.contains("Connection: close"), answer);
                assertTrue(answer.contains("\"rate_limit_error\""), answer);
            }
            assertEquals(200, busy.get(30, TimeUnit.SECONDS).statusCode());
        } finally {
            server.getOutputStream().close();
            if (!server.waitFor(20, TimeUnit.SECONDS)) {
                server.destroyForcibly();
            }
        }
    }

    private static final String BOUNDARY = "----flux2budget";

    /**
     * One upload as a careful client sends it: the headers with {@code Expect: 100-continue}, the body only after
     * {@code 100 Continue}. @return the final answer (status line, headers, body)
     */
    private static String upload(int port, byte[] body) throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(120_000);
            OutputStream o = s.getOutputStream();
            o.write(("POST /v1/images/edits HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                            + "Expect: 100-continue\r\nContent-Type: multipart/form-data; boundary=" + BOUNDARY
                            + "\r\nContent-Length: " + body.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            o.flush();
            InputStream in = s.getInputStream();
            String head = readHead(in);
            if (head.startsWith("HTTP/1.1 100")) {
                o.write(body);
                o.flush();
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            return head + new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static String readHead(InputStream in) throws Exception {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                break;
            }
            head.write(b);
            matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        return head.toString(StandardCharsets.US_ASCII);
    }

    private static byte[] multipart(byte[] png) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"prompt\"\r\n\r\na fox\r\n--"
                        + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"size\"\r\n\r\n32x32\r\n--" + BOUNDARY
                        + "\r\nContent-Disposition: form-data; name=\"image\"; filename=\"a.png\"\r\n"
                        + "Content-Type: image/png\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.writeBytes(png);
        out.writeBytes(("\r\n--" + BOUNDARY + "--\r\n").getBytes(StandardCharsets.US_ASCII));
        return out.toByteArray();
    }

    /** A 64x64 PNG carrying {@code extra} random bytes in a private ancillary chunk after its pixels. */
    private static byte[] paddedPng(int extra) throws Exception {
        BufferedImage image = new BufferedImage(64, 64, BufferedImage.TYPE_INT_RGB);
        ByteArrayOutputStream png = new ByteArrayOutputStream();
        ImageIO.write(image, "png", png);
        byte[] plain = png.toByteArray();
        int iend = plain.length - 12; // the IEND chunk: length, type, CRC
        byte[] data = new byte[extra];
        new Random(1).nextBytes(data);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(plain, 0, iend);
        DataOutputStream chunk = new DataOutputStream(out);
        byte[] type = "prVt".getBytes(StandardCharsets.US_ASCII);
        chunk.writeInt(extra);
        chunk.write(type);
        chunk.write(data);
        CRC32 crc = new CRC32();
        crc.update(type);
        crc.update(data);
        chunk.writeInt((int) crc.getValue());
        out.write(plain, iend, 12);
        return out.toByteArray();
    }
}
