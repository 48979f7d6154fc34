package dev.flux2.onnx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.InvalidRequestException;
import dev.flux2.onnx.session.OptimizationLevel;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class OnnxBackendOptionsTest {
    @Test
    void defaultsWhenEmpty() {
        assertEquals(OnnxBackendOptions.defaults(), OnnxBackendOptions.parse(Map.of()));
    }

    @Test
    void parsesEveryOption() {
        OnnxBackendOptions o = OnnxBackendOptions.parse(Map.of(
                "graph_optimization_level", "Disabled", "fused", "off", "pin_dimensions", "false", "device_id", "2"));
        assertEquals(Optional.of(OptimizationLevel.DISABLED), o.optimizationLevel());
        assertFalse(o.fusedEnabled());
        assertFalse(o.pinDimensions());
        assertEquals(2, o.deviceId());
    }

    @Test
    void unknownKeyListsTheKnownOnes() {
        String msg = assertThrows(InvalidRequestException.class, () -> OnnxBackendOptions.parse(Map.of("fusd", "off")))
                .getMessage();
        assertTrue(
                msg.contains("'fusd'")
                        && msg.contains("fused")
                        && msg.contains("graph_optimization_level")
                        && msg.contains("pin_dimensions")
                        && msg.contains("device_id"),
                msg);
    }

    @Test
    void badValuesNameKeyValueAndAccepted() {
        String msg = assertThrows(
                        InvalidRequestException.class,
                        () -> OnnxBackendOptions.parse(Map.of("graph_optimization_level", "max")))
                .getMessage();
        assertTrue(msg.contains("graph_optimization_level") && msg.contains("'max'") && msg.contains("disabled"), msg);
        msg = assertThrows(InvalidRequestException.class, () -> OnnxBackendOptions.parse(Map.of("fused", "yes")))
                .getMessage();
        assertTrue(msg.contains("fused must be auto or off, got 'yes'"), msg);
        msg = assertThrows(InvalidRequestException.class, () -> OnnxBackendOptions.parse(Map.of("device_id", "-1")))
                .getMessage();
        assertTrue(msg.contains("device_id"), msg);
    }
}
