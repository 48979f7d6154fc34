package dev.flux2.onnx.session;

import dev.flux2.api.ModelLoadException;

/**
 * The message for a thread that cannot start. Under a thread limit (a container's {@code pids.max}, {@code ulimit -u})
 * {@link Thread#start()} throws {@code OutOfMemoryError: unable to create native thread}; left alone, that error
 * escaped as a raw JVM error, or left a background open registered whose waiter then waited forever.
 */
public final class ThreadStartFailure {
    private ThreadStartFailure() {}

    /**
     * @param what what the thread was for, e.g. "loading the tokenizer"
     * @param error what {@link Thread#start()} threw
     * @return a model error that says so and names the way out
     */
    public static ModelLoadException of(String what, Throwable error) {
        return new ModelLoadException(
                "cannot start a thread for " + what + " (" + error.getMessage() + "): the "
                        + "process has reached its thread limit (ulimit -u, or the container's pids.max); lower --threads"
                        + " (backend option threads) or raise the limit",
                error);
    }
}
