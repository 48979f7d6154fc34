package dev.flux2.spark;

import java.util.UUID;
import org.apache.spark.TaskContext;

/**
 * The task attempt running a partition, as far as the write protocol cares.
 *
 * @param attemptNumber 0 for a task's first attempt, higher for retries and speculative copies
 * @param tag unique per attempt and per run, to name temporary files
 */
record TaskAttempt(int attemptNumber, String tag) {
    /** @return the current Spark task's attempt, or a unique one outside a task */
    static TaskAttempt current() {
        String random = UUID.randomUUID().toString().substring(0, 8);
        TaskContext ctx = TaskContext.get();
        if (ctx == null) {
            return new TaskAttempt(0, "local-" + random);
        }
        return new TaskAttempt(ctx.attemptNumber(), "t" + ctx.taskAttemptId() + "-" + random);
    }
}
