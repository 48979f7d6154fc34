package dev.flux2.io;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A remote image's body, collected up to a size: refused as soon as the status is not 200 or the bytes pass the
 * limit (the connection is cancelled, nothing more is read), so neither a wrong answer nor an endless body is read
 * to its end. The time bound is the caller's ({@link EncodedImages#fetch}).
 */
final class BoundedBody implements HttpResponse.BodySubscriber<byte[]> {
    /** The server answered another status than 200. */
    static final class WrongStatus extends IOException {
        final int code;

        WrongStatus(int code) {
            super("HTTP " + code);
            this.code = code;
        }
    }

    /** The body passed the size limit. */
    static final class TooLarge extends IOException {
        TooLarge(long limit) {
            super("over " + limit + " bytes");
        }
    }

    private final long maxBytes;
    private final CompletableFuture<byte[]> result = new CompletableFuture<>();
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final AtomicLong received = new AtomicLong();
    private volatile int status = 200;
    private volatile Flow.Subscription subscription;

    BoundedBody(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    /** The body handler: this subscriber, told the response's status. */
    HttpResponse.BodySubscriber<byte[]> forStatus(HttpResponse.ResponseInfo info) {
        status = info.statusCode();
        return this;
    }

    /** @return the body's bytes received so far */
    long received() {
        return received.get();
    }

    /** Stops reading (the deadline passed). */
    void cancel() {
        Flow.Subscription s = subscription;
        if (s != null) {
            s.cancel();
        }
    }

    @Override
    public CompletionStage<byte[]> getBody() {
        return result;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        subscription = s;
        if (status != 200) {
            s.cancel();
            result.completeExceptionally(new WrongStatus(status));
        } else {
            s.request(Long.MAX_VALUE);
        }
    }

    @Override
    public void onNext(List<ByteBuffer> buffers) {
        if (result.isDone()) {
            return;
        }
        for (ByteBuffer buffer : buffers) {
            long total = received.addAndGet(buffer.remaining());
            if (total > maxBytes) {
                subscription.cancel();
                result.completeExceptionally(new TooLarge(maxBytes));
                return;
            }
            byte[] chunk = new byte[buffer.remaining()];
            buffer.get(chunk);
            synchronized (bytes) {
                bytes.write(chunk, 0, chunk.length);
            }
        }
    }

    @Override
    public void onError(Throwable error) {
        result.completeExceptionally(error);
    }

    @Override
    public void onComplete() {
        synchronized (bytes) {
            result.complete(bytes.toByteArray());
        }
    }
}
