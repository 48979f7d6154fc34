package dev.flux2.spark;

/**
 * Exit codes of {@link Flux2BatchJob}.
 *
 * <table>
 * <caption>Exit codes</caption>
 * <tr><td>0</td><td>the batch ran; failed rows (without {@code --fail-fast}) are in the results</td></tr>
 * <tr><td>1</td><td>unexpected failure: the output cannot be written, Spark failed, a bug</td></tr>
 * <tr><td>2</td><td>usage error or unusable input: unknown or malformed option, missing input, unknown format,
 *     missing or mistyped columns, repeated ids</td></tr>
 * <tr><td>3</td><td>the model cannot be loaded on the executors</td></tr>
 * <tr><td>4</td><td>{@code --fail-fast}: a row failed</td></tr>
 * <tr><td>130, 143</td><td>interrupted by SIGINT or SIGTERM (128 + the signal; running generations cancelled,
 *     pipelines closed)</td></tr>
 * </table>
 */
final class JobExitCodes {
    /** The batch ran. */
    static final int OK = 0;
    /** Unexpected failure. */
    static final int FAILURE = 1;
    /** Usage error or unusable input. */
    static final int USAGE = 2;
    /** Unusable model. */
    static final int MODEL = 3;
    /** A row failed under fail-fast. */
    static final int ROW_FAILED = 4;
    /** Interrupted by a signal: this plus the signal's number (130 for SIGINT, 143 for SIGTERM). */
    static final int INTERRUPTED_BASE = 128;

    private JobExitCodes() {}
}
