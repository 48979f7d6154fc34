package dev.flux2.onnx;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.flux2.hub.ModelNames;
import org.junit.jupiter.api.Test;

/**
 * The backend names the plain ONNX export where a VAE encoder is missing without depending on flux2-hub (issue #28):
 * the name it writes must stay the hub's.
 */
class VaeEncoderSourceTest {
    @Test
    void theExportNamedIsTheHubsPlainOnnxExport() {
        assertEquals("the vae_encoder of " + ModelNames.HLHC_MODEL, OnnxBackend.VAE_ENCODER_SOURCE);
    }
}
