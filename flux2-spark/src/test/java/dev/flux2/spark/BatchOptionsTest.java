package dev.flux2.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.InvalidRequestException;
import dev.flux2.onnx.options.OnnxOptions;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The backend options of a batch: typed, and checked on the driver by the backend's own parser. */
class BatchOptionsTest {
    @Test
    void aMistypedOptionFailsOnTheDriver() {
        InvalidRequestException e = assertThrows(
                InvalidRequestException.class,
                () -> BatchOptions.builder("/models/klein", "/tmp/out")
                        .backendOption("fusd", "off")
                        .build());
        assertTrue(e.getMessage().contains("'fusd'") && e.getMessage().contains("fused"), e.getMessage());
        InvalidRequestException value = assertThrows(
                InvalidRequestException.class,
                () -> BatchOptions.builder("/models/klein", "/tmp/out")
                        .backendOption("threads", "-1")
                        .build());
        assertTrue(value.getMessage().contains("threads"), value.getMessage());
    }

    @Test
    void typedOptionsReachTheExecutorsAsTheirStrings() {
        BatchOptions options = BatchOptions.builder("/models/klein", "/tmp/out")
                .onnxOptions(OnnxOptions.builder().threads(2).fused(false).build())
                .build();
        assertEquals(Map.of("threads", "2", "fused", "off"), options.backendOptions());
    }
}
