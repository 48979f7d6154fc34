package dev.flux2.hub;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * A response body whose reads honour the reading thread's interrupt. The JDK's {@code HttpResponseInputStream}
 * swallows an interrupt while it waits for data and goes on waiting, so Ctrl-C (or a cancelled generation) would
 * wait for a whole download: here a daemon thread pumps the body into a small queue, and the caller waits on that
 * queue, which an interrupt ends at once ({@link InterruptedIOException}); the body is then closed.
 */
final class InterruptibleBody extends InputStream {
    private static final byte[] END = new byte[0];
    private static final int CHUNK = 1 << 16;

    private final InputStream body;
    private final BlockingQueue<Object> chunks = new ArrayBlockingQueue<>(4);
    private final Thread pump;
    private byte[] current = new byte[0];
    private int position;
    private boolean ended;

    InterruptibleBody(InputStream body) {
        this.body = body == null ? InputStream.nullInputStream() : body;
        this.pump = new Thread(this::pump, "flux2-hub-body");
        pump.setDaemon(true);
        pump.start();
    }

    private void pump() {
        try {
            while (true) {
                byte[] buf = new byte[CHUNK];
                int n = body.read(buf);
                if (n < 0) {
                    chunks.put(END);
                    return;
                }
                chunks.put(n == CHUNK ? buf : Arrays.copyOf(buf, n));
            }
        } catch (IOException e) {
            chunks.offer(e);
        } catch (InterruptedException e) {
            // closed by the reader
        }
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        while (position >= current.length) {
            if (ended) {
                return -1;
            }
            Object next;
            try {
                next = chunks.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                close();
                throw new InterruptedIOException("interrupted while waiting for data");
            }
            if (next instanceof IOException failure) {
                throw new IOException(failure.getMessage(), failure);
            }
            current = (byte[]) next;
            position = 0;
            ended = current == END;
        }
        int n = Math.min(len, current.length - position);
        System.arraycopy(current, position, b, off, n);
        position += n;
        return n;
    }

    @Override
    public void close() throws IOException {
        pump.interrupt();
        body.close();
    }
}
