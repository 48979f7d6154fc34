package dev.flux2.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.InvalidImageException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The adapters' encoded-image rules against hostile input (issue #33): passwords in URLs never reach a message,
 * {@code file:} URLs stay inside the folders allowed, and a remote image is bounded in total time and size, each on a
 * loopback server that misbehaves on purpose.
 */
class EncodedImagesTest {
    private static final Duration SHORT = Duration.ofSeconds(1);

    @Test
    void redactDropsTheUserInformationOfValidAndMalformedUrls() {
        assertEquals(
                "http://***@example.test:8080/a.png",
                EncodedImages.redact("http://user:secret@example.test:8080/a.png"));
        assertEquals("https://***@host/x?y=1", EncodedImages.redact(URI.create("https://token@host/x?y=1")));
        // Not a valid URI (a space), still redacted; an '@' in the path is no user information.
        assertEquals("http://***@host/a b.png", EncodedImages.redact("http://us er:p@ss@host/a b.png"));
        assertEquals("http://host/me@2x.png", EncodedImages.redact("http://host/me@2x.png"));
        assertEquals("file:///tmp/a.png", EncodedImages.redact("file:///tmp/a.png"));
        assertEquals("data:image/png;base64,AAAA", EncodedImages.redact("data:image/png;base64,AAAA"));
    }

    @Test
    void aPasswordInAnImageUrlIsInNoErrorOfAFetch() throws IOException {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        InvalidImageException refused = assertThrows(
                InvalidImageException.class,
                () -> EncodedImages.fetch(
                        URI.create("http://user:secret@127.0.0.1:" + closedPort + "/a.png"), "image", SHORT, 1000));
        assertNoSecret(refused);
        assertTrue(refused.getMessage().contains("http://***@127.0.0.1:" + closedPort), refused.getMessage());
        assertFalse(refused.getMessage().endsWith("null"), "a refused connection is named: " + refused.getMessage());

        try (LoopbackServer server = new LoopbackServer(
                out -> out.write(ascii("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")))) {
            InvalidImageException notFound = assertThrows(
                    InvalidImageException.class,
                    () -> EncodedImages.fetch(server.url("user:secret@"), "mask", SHORT, 1000));
            assertNoSecret(notFound);
            assertTrue(notFound.getMessage().contains("answered HTTP 404"), notFound.getMessage());
        }
        InvalidImageException noHost = assertThrows(
                InvalidImageException.class,
                () -> EncodedImages.fetch(URI.create("http://user:secret@/a.png"), "image", SHORT, 1000));
        assertNoSecret(noHost);
    }

    @Test
    void aServerThatSendsItsHeadersThenStallsIsCutOffAtTheTotalTime() throws IOException {
        try (LoopbackServer server = new LoopbackServer(out -> {
            out.write(ascii("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n"));
            out.write(new byte[10]);
            out.flush();
            sleep(20_000);
        })) {
            assertCutOff(server);
        }
    }

    @Test
    void aServerThatDripsItsBodyIsCutOffAtTheTotalTime() throws IOException {
        try (LoopbackServer server = new LoopbackServer(out -> {
            out.write(ascii("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n"));
            out.flush();
            for (int i = 0; i < 400; i++) { // a byte every 50 ms: no single read ever waits long
                out.write(0);
                out.flush();
                sleep(50);
            }
        })) {
            assertCutOff(server);
        }
    }

    @Test
    void aBodyOverTheSizeLimitIsRefusedAndOneAtTheLimitIsRead() throws IOException {
        byte[] body = new byte[1000];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) (i * 31);
        }
        // No Content-Length: the body ends when the connection closes, so only counting the bytes can refuse it.
        try (LoopbackServer server = new LoopbackServer(out -> {
            out.write(ascii("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n"));
            out.write(body);
        })) {
            InvalidImageException over = assertThrows(
                    InvalidImageException.class, () -> EncodedImages.fetch(server.url(""), "image", SHORT, 999));
            assertTrue(over.getMessage().contains("is over 999 bytes"), over.getMessage());
            assertArrayEquals(body, EncodedImages.fetch(server.url(""), "image", SHORT, 1000));
        }
    }

    @Test
    void fileUrlsAreReadOnlyInsideTheFoldersAllowed(@TempDir Path tmp) throws IOException {
        Path allowed = Files.createDirectories(tmp.resolve("allowed"));
        Path secret = Files.writeString(
                Files.createDirectories(tmp.resolve("private")).resolve("key.png"), "x");
        Path inside = Files.writeString(allowed.resolve("in.png"), "x");

        assertEquals(
                inside.toRealPath(),
                EncodedImages.file(inside.toUri(), "image", List.of(allowed)).path());
        assertFalse(
                EncodedImages.file(inside.toUri(), "image", List.of(allowed)).temporary());

        InvalidImageException none =
                assertThrows(InvalidImageException.class, () -> EncodedImages.file(inside.toUri(), "image", List.of()));
        assertTrue(none.getMessage().contains("outside the folders allowed"), none.getMessage());
        InvalidImageException outside = assertThrows(
                InvalidImageException.class, () -> EncodedImages.file(secret.toUri(), "image", List.of(allowed)));
        assertTrue(outside.getMessage().contains("outside the folders allowed"), outside.getMessage());
        URI dotDot = URI.create(allowed.toUri() + "../private/key.png");
        assertThrows(InvalidImageException.class, () -> EncodedImages.file(dotDot, "image", List.of(allowed)));
        // A folder whose name starts like the allowed one is another folder.
        Path sibling = Files.writeString(
                Files.createDirectories(tmp.resolve("allowed2")).resolve("b.png"), "x");
        assertThrows(InvalidImageException.class, () -> EncodedImages.file(sibling.toUri(), "image", List.of(allowed)));
        try {
            Path link = Files.createSymbolicLink(allowed.resolve("link.png"), secret);
            InvalidImageException viaLink = assertThrows(
                    InvalidImageException.class, () -> EncodedImages.file(link.toUri(), "image", List.of(allowed)));
            assertTrue(viaLink.getMessage().contains("resolves to " + secret.toRealPath()), viaLink.getMessage());
        } catch (UnsupportedOperationException e) {
            // no symbolic links on this file system: the other cases still ran
        }
        InvalidImageException withHost = assertThrows(
                InvalidImageException.class,
                () -> EncodedImages.file(URI.create("file://user:secret@host/a.png"), "image", List.of(allowed)));
        assertNoSecret(withHost);
    }

    private static void assertCutOff(LoopbackServer server) {
        long start = System.nanoTime();
        InvalidImageException slow = assertThrows(
                InvalidImageException.class,
                () -> EncodedImages.fetch(server.url("user:secret@"), "image", SHORT, 1 << 20));
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(millis < 5_000, "cut off after " + millis + " ms, expected about 1 s");
        assertTrue(slow.getMessage().contains("was not received within 1 s"), slow.getMessage());
        assertNoSecret(slow);
    }

    private static void assertNoSecret(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            assertFalse(String.valueOf(t.getMessage()).contains("secret"), "password shown: " + t.getMessage());
        }
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** What the server writes to each connection after reading the request's head. */
    interface Answer {
        void write(OutputStream out) throws IOException;
    }

    /** A loopback HTTP server that answers every connection with a fixed, possibly hostile, answer. */
    static final class LoopbackServer implements AutoCloseable {
        private final ServerSocket socket;
        private final Thread acceptor;

        LoopbackServer(Answer answer) throws IOException {
            socket = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
            acceptor = new Thread(() -> {
                while (!socket.isClosed()) {
                    try {
                        Socket connection = socket.accept();
                        Thread handler = new Thread(() -> answer(connection, answer));
                        handler.setDaemon(true);
                        handler.start();
                    } catch (IOException e) {
                        return;
                    }
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
        }

        private static void answer(Socket connection, Answer answer) {
            try (connection) {
                int matched = 0;
                var in = connection.getInputStream();
                while (matched < 4) { // read up to the blank line ending the request's head
                    int b = in.read();
                    if (b < 0) {
                        return;
                    }
                    matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : (b == '\r' ? 1 : 0);
                }
                OutputStream out = connection.getOutputStream();
                answer.write(out);
                out.flush();
            } catch (IOException e) {
                // the client hung up: what the cut-off tests expect
            }
        }

        URI url(String userInfo) {
            return URI.create("http://" + userInfo + "127.0.0.1:" + socket.getLocalPort() + "/image.png");
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
