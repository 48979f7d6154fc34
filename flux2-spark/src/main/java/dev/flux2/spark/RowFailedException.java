package dev.flux2.spark;

import dev.flux2.api.Flux2Exception;

/**
 * A request row failed while {@link BatchOptions#failFast()} was set: thrown in the task, it fails the Spark job.
 * The message names the row id and the reason.
 */
public final class RowFailedException extends Flux2Exception {
    private static final long serialVersionUID = 1L;

    /**
     * @param id the row's id as given
     * @param reason why it failed, one line
     * @param cause the failure, if any
     */
    public RowFailedException(String id, String reason, Throwable cause) {
        super("row " + Values.quote(id) + " failed (fail-fast): " + reason, cause);
    }
}
