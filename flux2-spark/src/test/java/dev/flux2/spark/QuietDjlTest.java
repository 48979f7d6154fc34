package dev.flux2.spark;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.Test;

/** DJL's CUDA warning does not reach Spark's log, as it does not reach the CLI's. */
class QuietDjlTest {
    @Test
    void djlsCudaProbeLogsErrorsOnly() {
        // The test configuration silences the parent logger itself, and a job run earlier in this JVM applied the
        // level already: forget both, and open the parent as a user's WARN setup would have it.
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        context.getConfiguration().removeLogger(QuietDjl.LOGGER);
        context.updateLoggers();
        Configurator.setLevel("ai.djl.util.cuda", Level.WARN);
        try {
            org.apache.logging.log4j.Logger cuda = LogManager.getLogger(QuietDjl.LOGGER);
            assertTrue(cuda.isWarnEnabled(), "precondition: the warning would be logged");
            QuietDjl.apply();
            assertFalse(cuda.isWarnEnabled(), "DJL's CUDA warning would still be logged");
            assertTrue(cuda.isErrorEnabled());
        } finally {
            Configurator.setLevel("ai.djl.util.cuda", Level.ERROR);
        }
    }
}
