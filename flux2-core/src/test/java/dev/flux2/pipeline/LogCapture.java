package dev.flux2.pipeline;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Captures what slf4j-simple (the test binding) prints while open. slf4j-simple resolves {@code System.err} (or
 * {@code System.out}) at every write, so swapping the streams is enough. The captured output is not passed through:
 * the warnings and stack traces that tests provoke on purpose (a throwing listener) must not fill a green build's
 * log, where they read as failures; a test that fails shows {@link #text()} in its message.
 */
public final class LogCapture implements AutoCloseable {
    private final PrintStream originalErr = System.err;
    private final PrintStream originalOut = System.out;
    private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();

    public LogCapture() {
        System.setErr(new PrintStream(new Tee(buffer, OutputStream.nullOutputStream()), true, StandardCharsets.UTF_8));
        System.setOut(new PrintStream(new Tee(buffer, OutputStream.nullOutputStream()), true, StandardCharsets.UTF_8));
    }

    /** @return everything logged so far */
    public synchronized String text() {
        return buffer.toString(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        System.setErr(originalErr);
        System.setOut(originalOut);
    }

    private static final class Tee extends OutputStream {
        private final OutputStream first;
        private final OutputStream second;

        Tee(OutputStream first, OutputStream second) {
            this.first = first;
            this.second = second;
        }

        @Override
        public void write(int b) throws java.io.IOException {
            synchronized (first) {
                first.write(b);
            }
            second.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws java.io.IOException {
            synchronized (first) {
                first.write(b, off, len);
            }
            second.write(b, off, len);
        }

        @Override
        public void flush() throws java.io.IOException {
            second.flush();
        }
    }
}
