package dev.flux2.spark;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Silences DJL's CUDA probe ({@code ai.djl.util.cuda.CudaUtils}), as the {@code flux2} CLI does: the tokenizer
 * never uses CUDA, and its warning on every executor without a GPU only alarms Spark users. Spark logs through
 * Log4j 2, so the level is set there (reflectively: the job does not depend on Log4j, and without it nothing is
 * done). A level the user configured for that logger is kept.
 */
final class QuietDjl {
    /** The logger DJL warns on. */
    static final String LOGGER = "ai.djl.util.cuda.CudaUtils";

    private static final Logger LOG = LoggerFactory.getLogger(QuietDjl.class);

    private QuietDjl() {}

    /** Sets {@value #LOGGER} to {@code ERROR} unless the Log4j configuration names it. */
    static void apply() {
        try {
            Class<?> logManager = Class.forName("org.apache.logging.log4j.LogManager");
            Object context = logManager.getMethod("getContext", boolean.class).invoke(null, false);
            Object config = context.getClass().getMethod("getConfiguration").invoke(context);
            Object loggers = config.getClass().getMethod("getLoggers").invoke(config);
            if (loggers instanceof java.util.Map<?, ?> named && named.containsKey(LOGGER)) {
                return;
            }
            Class<?> level = Class.forName("org.apache.logging.log4j.Level");
            Class.forName("org.apache.logging.log4j.core.config.Configurator")
                    .getMethod("setLevel", String.class, level)
                    .invoke(null, LOGGER, level.getField("ERROR").get(null));
        } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
            LOG.debug("cannot set the level of {} (no Log4j 2 core here)", LOGGER, e);
        }
    }
}
