package dev.flux2.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flux2.api.Flux2Exception;
import dev.flux2.api.GeneratedImage;
import dev.flux2.api.GenerationControls;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.api.Preview;
import dev.flux2.api.PreviewOptions;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.util.Base64;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * OpenAI's streamed image answer ({@code stream: true}): {@code text/event-stream} with up to {@code partial_images}
 * {@code image_generation.partial_image} events per image (edits: {@code image_edit.partial_image}) and one
 * {@code image_generation.completed} ({@code image_edit.completed}) per image, in image order (docs/server.md,
 * "Streaming"). The partial images are the pipeline's linear live previews of the steps {@link PartialImagePlan}
 * picks, scaled to the image's size; the generating worker only hands them over, and this request's own thread
 * encodes and writes them while it waits for the generation (through {@link GenerationQueue.Companion}), so a slow
 * client never stalls a worker. Every limit, the timeout and the 429 are the queue's, as for a JSON answer; what
 * fails before the first event is answered with its HTTP status, what fails after it is an {@code error} event.
 */
final class OpenAiImageStream implements GenerationQueue.Companion {
    private static final Logger LOG = LoggerFactory.getLogger(OpenAiImageStream.class);
    /** Put by the worker when the generation ended, to wake the waiting request thread at once. */
    private static final Object FINISHED = new Object();

    private final OpenAiImageRequest fields;
    private final boolean edit;
    private final EventStream stream;
    private final BlockingQueue<Object> handed = new LinkedBlockingQueue<>();
    /** Whether the request thread has seen {@link #FINISHED}; read and written by it alone. */
    private boolean ended;
    /** When the last event or comment was written (request thread only). */
    private long lastWrite = System.nanoTime();
    /** A comment after this much silence keeps proxies from closing the stream during a long step. */
    private static final long KEEP_ALIVE_NANOS = TimeUnit.SECONDS.toNanos(15);

    /** One partial image, handed from the worker to the request thread. */
    private record Partial(int image, int index, BufferedImage preview) {}

    private OpenAiImageStream(OpenAiImageRequest fields, boolean edit, Response response) {
        this.fields = fields;
        this.edit = edit;
        this.stream = new EventStream(response);
    }

    /**
     * Runs the generation and streams its answer.
     *
     * @param queue the queue
     * @param metrics the metrics
     * @param admitted the request's slot and body
     * @param generation the validated request
     * @param fields the OpenAI fields ({@code stream} is true)
     * @param edit whether it is an edit (the events' names)
     * @param request the exchange's request
     * @param response its response
     * @param callback its callback
     */
    static void answer(
            GenerationQueue queue,
            ServerMetrics metrics,
            QueueAnswers.Admitted admitted,
            GenerationRequest generation,
            OpenAiImageRequest fields,
            boolean edit,
            Request request,
            Response response,
            Callback callback) {
        OpenAiImageStream s = new OpenAiImageStream(fields, edit, response);
        GenerationResult result;
        try {
            try {
                result = queue.run(
                        admitted.slot(),
                        generation,
                        () -> s.stream.failed() || HttpExchanges.clientGone(request, response),
                        s);
            } finally {
                // Released before the answer ends, as for JSON answers: the client's next request finds them free.
                admitted.close();
            }
            metrics.generated(result);
        } catch (GenerationQueue.TimedOutException
                | GenerationQueue.AbandonedException
                | GenerationQueue.ClosedException
                | Flux2Exception e) {
            s.failed(e, response, callback);
            return;
        }
        try {
            s.deliverHanded();
            for (GeneratedImage image : result.images()) {
                s.stream.send(s.name("completed"), s.completed(image));
            }
            s.stream.end(callback);
        } catch (IOException e) {
            LOG.debug("the client of a streamed answer hung up at its end: {}", e.toString());
            callback.failed(e);
        }
    }

    private String name(String kind) {
        return (edit ? "image_edit." : "image_generation.") + kind;
    }

    @Override
    public GenerationControls controls(GenerationControls base) {
        if (fields.partialImages() == 0) {
            return base;
        }
        int partials = fields.partialImages();
        // LINEAR at its own size (W/8 × H/8): the worker pays about a millisecond; scaling and encoding happen here
        return base.withPreviews(PreviewOptions.linear(1), preview -> offer(preview, partials));
    }

    private void offer(Preview preview, int partials) {
        int index = PartialImagePlan.indexAfter(preview.step(), preview.steps(), partials);
        if (index >= 0) {
            handed.add(new Partial(preview.imageIndex(), index, preview.image()));
        }
    }

    @Override
    public void generationEnded() {
        handed.add(FINISHED);
    }

    @Override
    public boolean whileWaiting(long nanos) throws InterruptedException {
        if (ended) {
            return true;
        }
        Object next = handed.poll(nanos, TimeUnit.NANOSECONDS);
        while (next != null) {
            if (next instanceof Partial p) {
                sendPartial(p);
            } else if (next == FINISHED) {
                ended = true;
            }
            next = handed.poll();
        }
        if (!ended && System.nanoTime() - lastWrite > KEEP_ALIVE_NANOS) {
            try {
                stream.keepAlive();
            } catch (IOException e) {
                LOG.debug("the client of a streamed answer hung up: {}", e.toString());
            }
            lastWrite = System.nanoTime();
        }
        return ended;
    }

    /** Sends what the worker handed over and the request thread has not yet sent. */
    private void deliverHanded() {
        Object next;
        while ((next = handed.poll()) != null) {
            if (next instanceof Partial p) {
                sendPartial(p);
            }
        }
    }

    private void sendPartial(Partial p) {
        if (stream.failed()) {
            return;
        }
        BufferedImage image =
                scaled(p.preview(), 8 * p.preview().getWidth(), 8 * p.preview().getHeight());
        ObjectNode data =
                event(name("partial_image"), ImageEncoding.encode(image, fields), image.getWidth(), image.getHeight());
        data.put("partial_image_index", p.index());
        try {
            stream.send(name("partial_image"), data);
            lastWrite = System.nanoTime();
        } catch (IOException e) {
            // the queue sees stream.failed() as the client gone and cancels the generation
            LOG.debug("the client of a streamed answer hung up: {}", e.toString());
        }
    }

    private ObjectNode completed(GeneratedImage image) {
        byte[] bytes = ImageEncoding.encode(image, fields);
        ObjectNode data = event(
                name("completed"),
                bytes,
                image.metadata().width(),
                image.metadata().height());
        image.metadata().seed().ifPresent(s -> data.put("seed", s));
        ObjectNode usage = data.putObject("usage");
        // A diffusion model reads and writes latent tokens, not text tokens: the image's tokens are its output (one
        // per 16×16 pixels); input tokens are not counted (0), which OpenAI's clients accept.
        long imageTokens =
                (long) (image.metadata().width() / 16) * (image.metadata().height() / 16);
        usage.put("input_tokens", 0);
        usage.put("output_tokens", imageTokens);
        usage.put("total_tokens", imageTokens);
        ObjectNode details = usage.putObject("input_tokens_details");
        details.put("text_tokens", 0);
        details.put("image_tokens", 0);
        return data;
    }

    private ObjectNode event(String type, byte[] bytes, int width, int height) {
        ObjectNode data = HttpExchanges.JSON.createObjectNode();
        data.put("type", type);
        data.put("b64_json", Base64.getEncoder().encodeToString(bytes));
        data.put("created_at", System.currentTimeMillis() / 1000);
        data.put("size", width + "x" + height);
        data.put("quality", fields.quality());
        data.put("background", fields.background());
        data.put("output_format", fields.outputFormat());
        return data;
    }

    private static BufferedImage scaled(BufferedImage image, int width, int height) {
        BufferedImage out = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = out.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_INTERPOLATION, RenderingHints.VALUE_INTERPOLATION_BILINEAR);
            g.drawImage(image, 0, 0, width, height, null);
        } finally {
            g.dispose();
        }
        return out;
    }

    /** Before the first event: the JSON error answer; after it: an {@code error} event, then the end. */
    private void failed(Exception e, Response response, Callback callback) {
        if (!stream.committed()) {
            QueueAnswers.answerFailure(e, response, callback);
            return;
        }
        if (stream.failed() || e instanceof GenerationQueue.AbandonedException) {
            callback.failed(e);
            return;
        }
        ObjectNode data = HttpExchanges.JSON.createObjectNode();
        data.put("type", "error");
        data.set("error", HttpExchanges.errorObject(QueueAnswers.failure(e)));
        try {
            stream.send("error", data);
            stream.end(callback);
        } catch (IOException io) {
            callback.failed(io);
        }
    }
}
