package dev.flux2.cli;

import dev.flux2.api.Flux2Exception;
import dev.flux2.api.GenerationCancelledException;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.api.ModelLoadException;
import dev.flux2.onnx.runtime.RuntimeLibraryException;

/**
 * The {@code flux2} command's exit codes.
 *
 * <table>
 * <caption>Exit codes</caption>
 * <tr><td>0</td><td>success</td></tr>
 * <tr><td>1</td><td>unexpected failure (a bug, or an output file that cannot be written)</td></tr>
 * <tr><td>2</td><td>usage error: unknown or malformed option, invalid request value (size, strength, image)</td></tr>
 * <tr><td>3</td><td>model or bundle error: missing or broken file, bad config, failed or unverifiable download</td></tr>
 * <tr><td>4</td><td>generation failed inside the runtime</td></tr>
 * <tr><td>5</td><td>the ONNX Runtime native library cannot be used: the WebGPU or CUDA runtime not installed, corrupt
 * or of another version, a library that cannot be loaded, a conflict with the library already loaded, or a failed
 * {@code flux2 runtime install}; for CUDA also a missing CUDA library, no NVIDIA driver or no GPU
 * ({@code CudaUnavailableException})</td></tr>
 * <tr><td>130</td><td>cancelled (Ctrl-C)</td></tr>
 * </table>
 */
final class ExitCodes {
    /** Success. */
    public static final int OK = 0;
    /** Unexpected failure. */
    public static final int SOFTWARE = 1;
    /** Usage error or invalid request. */
    public static final int USAGE = 2;
    /** The model bundle cannot be used (or downloaded). */
    public static final int MODEL = 3;
    /** Generation failed. */
    public static final int GENERATION = 4;
    /** The ONNX Runtime native library (the WebGPU or CUDA runtime, the CUDA libraries) cannot be used or installed. */
    public static final int RUNTIME = 5;
    /** Cancelled by the user (128 + SIGINT). */
    public static final int CANCELLED = 130;

    private ExitCodes() {}

    /**
     * @param error a failure escaping a command
     * @return its exit code
     */
    public static int of(Throwable error) {
        if (error instanceof GenerationCancelledException) {
            return CANCELLED;
        }
        if (error instanceof InvalidRequestException || error instanceof IllegalArgumentException) {
            return USAGE;
        }
        if (error instanceof RuntimeLibraryException) {
            return RUNTIME;
        }
        if (error instanceof ModelLoadException) {
            return MODEL;
        }
        if (error instanceof Flux2Exception) {
            return GENERATION;
        }
        return SOFTWARE;
    }
}
