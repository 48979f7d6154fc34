package dev.flux2.spark;

import dev.flux2.api.CancellationToken;
import dev.flux2.api.ProgressEvent;
import dev.flux2.api.ProgressListener;
import org.apache.spark.TaskContext;

/**
 * Cancels the generations of a task that Spark kills (a losing speculative copy, a cancelled job): Spark marks the
 * task interrupted, and at its next progress event (each stage and step) the generation's token is cancelled, so
 * the runtime call stops instead of running to its end.
 */
final class TaskCancellation implements ProgressListener {
    private final TaskContext context;
    private final CancellationToken token = new CancellationToken();

    /** @param context the task, or null outside a task (never cancels) */
    TaskCancellation(TaskContext context) {
        this.context = context;
    }

    /** @return the token to give each generation of this task */
    CancellationToken token() {
        return token;
    }

    @Override
    public void onProgress(ProgressEvent event) {
        if (context != null && context.isInterrupted()) {
            token.cancel();
        }
    }
}
