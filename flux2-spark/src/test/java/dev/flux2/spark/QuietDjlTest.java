package dev.flux2.spark;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.logging.log4j.LogManager;
import org.junit.jupiter.api.Test;

/** DJL's CUDA warning does not reach Spark's log, as it does not reach the CLI's. */
class QuietDjlTest {
    @Test
    void djlsCudaProbeLogsErrorsOnly() {
        QuietDjl.apply();
        org.apache.logging.log4j.Logger cuda = LogManager.getLogger(QuietDjl.LOGGER);
        assertFalse(cuda.isWarnEnabled(), "DJL's CUDA warning would still be logged");
        assertTrue(cuda.isErrorEnabled());
    }
}
