package dev.flux2.spark;

import dev.flux2.api.Flux2Exception;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.api.ModelLoadException;

/**
 * What a failure of the job means: its exit code and its one-line message. Spark wraps what a task threw (often
 * twice: a stage failure around a write failure); the cause chain is searched for the SDK's own exception.
 *
 * @param exitCode the {@link JobExitCodes exit code}
 * @param message one line, without the program name
 */
record JobFailure(int exitCode, String message) {
    /**
     * @param error what escaped the job
     * @return its classification
     */
    static JobFailure of(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof RowFailedException) {
                return new JobFailure(JobExitCodes.ROW_FAILED, Values.oneLine(t));
            }
            if (t instanceof ModelLoadException) {
                return new JobFailure(JobExitCodes.MODEL, "model error: " + Values.oneLine(t));
            }
            if (t instanceof InvalidRequestException) {
                return new JobFailure(JobExitCodes.USAGE, "invalid input: " + Values.oneLine(t));
            }
            if (t instanceof Flux2Exception) {
                return new JobFailure(JobExitCodes.FAILURE, "error: " + Values.oneLine(t));
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return new JobFailure(JobExitCodes.FAILURE, "error: " + firstLine(error));
    }

    private static String firstLine(Throwable error) {
        String m = error.getMessage();
        if (m == null || m.isBlank()) {
            return error.getClass().getName();
        }
        // Spark's messages carry the remote stack trace after the first line.
        return m.strip().lines().findFirst().orElse(m).strip();
    }
}
