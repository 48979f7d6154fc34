package dev.flux2.spark;

import java.io.IOException;
import org.apache.hadoop.fs.Path;

/**
 * A test hook in the image write protocol: tests install a fault that fires after an image's temporary file is
 * written and before it is renamed, to prove that a failed attempt leaves neither a partial nor a duplicate file.
 * Installed per JVM (tests run Spark in local mode, in their own JVM); no fault by default.
 */
final class WriteFaults {
    /** A fault to inject. */
    @FunctionalInterface
    interface Fault {
        /**
         * @param id the row
         * @param temporary the temporary file just written
         * @param attemptNumber the task's attempt number (0 for the first attempt)
         * @throws IOException to fail the write
         */
        void afterTemporaryWritten(RowId id, Path temporary, int attemptNumber) throws IOException;
    }

    private static final Fault NONE = (id, temporary, attempt) -> {};
    private static volatile Fault fault = NONE;

    private WriteFaults() {}

    /** @param value the fault to inject from now on */
    static void install(Fault value) {
        fault = value;
    }

    /** Removes the injected fault. */
    static void reset() {
        fault = NONE;
    }

    static void afterTemporaryWritten(RowId id, Path temporary, int attemptNumber) throws IOException {
        fault.afterTemporaryWritten(id, temporary, attemptNumber);
    }
}
