package dev.flux2.spark;

import dev.flux2.api.Flux2Exception;
import dev.flux2.api.GenerationCancelledException;
import dev.flux2.api.GenerationControls;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.api.ModelLoadException;
import dev.flux2.api.PipelineClosedException;
import dev.flux2.io.PngFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Row;

/**
 * Turns one request row into one result row inside a task: parse, skip when a complete image of the same request
 * is already there, read the images, generate on the executor's shared pipeline, write the PNG.
 *
 * <p>What becomes a {@code failed} row (or, with fail-fast, a {@link RowFailedException}): an invalid id or value,
 * an unreadable image, a request the model refuses, a generation that fails inside the runtime. What fails the task
 * instead, so that Spark retries it or stops the job: a model that cannot be loaded, an output that cannot be
 * written, a killed task, an executor shutting down.
 */
final class RowGenerator {
    private final RequestLayout layout;
    private final BatchOptions options;
    private final ImageStore store;
    private final Configuration conf;
    private final TaskAttempt attempt;
    private final TaskCancellation cancellation;

    RowGenerator(
            RequestLayout layout,
            BatchOptions options,
            ImageStore store,
            Configuration conf,
            TaskAttempt attempt,
            TaskCancellation cancellation) {
        this.layout = layout;
        this.options = options;
        this.store = store;
        this.conf = conf;
        this.attempt = attempt;
        this.cancellation = cancellation;
    }

    /**
     * @param row a request row of the layout's columns
     * @return its result row
     * @throws RowFailedException when the row failed and fail-fast is set
     */
    Row process(Row row) {
        return result(row).toRow();
    }

    private BatchResult result(Row row) {
        RowRequest request;
        try {
            request = layout.read(row);
        } catch (InvalidRequestException e) {
            return failure(BatchResult.unparsable(layout.rawId(row), Values.oneLine(e)), e);
        }
        try {
            Optional<Map<String, String>> existing = store.existing(request.id());
            if (existing.isPresent() && SameRequest.matches(existing.get(), request)) {
                return BatchResult.skipped(request, store.target(request.id()).toString(), existing.get());
            }
            GenerationRequest generation = toGeneration(request);
            GenerationControls controls = GenerationControls.none()
                    .withCancellation(cancellation.token())
                    .withProgress(cancellation);
            GenerationResult result =
                    ExecutorPipelines.acquire(PipelineKey.of(options)).generate(generation, controls);
            byte[] png = PngFiles.encode(result.first());
            Path path = store.write(request.id(), png, text -> SameRequest.matches(text, request), attempt);
            return BatchResult.ok(request, path.toString(), result.first().metadata(), result.timings());
        } catch (ModelLoadException | GenerationCancelledException | PipelineClosedException e) {
            throw e;
        } catch (Flux2Exception e) {
            return failure(BatchResult.failed(request, Values.oneLine(e)), e);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot write the image of row " + Values.quote(request.id().value()) + ": " + Values.oneLine(e),
                    e);
        }
    }

    private GenerationRequest toGeneration(RowRequest r) {
        GenerationRequest.Builder b = GenerationRequest.builder(r.prompt()).seed(r.effectiveSeed());
        if (r.width() != null) {
            b.width(r.width());
        }
        if (r.height() != null) {
            b.height(r.height());
        }
        if (r.steps() != null) {
            b.steps(r.steps());
        }
        if (r.guidance() != null) {
            b.guidance(r.guidance());
        }
        if (r.strength() != null) {
            b.strength(r.strength());
        }
        if (r.initImage() != null) {
            b.initImage(HadoopImages.read(r.initImage(), RequestColumns.INIT_IMAGE, conf));
        }
        for (int i = 0; i < r.referenceImages().size(); i++) {
            b.addReferenceImage(HadoopImages.read(
                    r.referenceImages().get(i), RequestColumns.REFERENCE_IMAGES + "[" + i + "]", conf));
        }
        return b.build();
    }

    private BatchResult failure(BatchResult failed, Exception cause) {
        if (options.failFast()) {
            throw new RowFailedException(failed.id(), failed.error(), cause);
        }
        return failed;
    }
}
