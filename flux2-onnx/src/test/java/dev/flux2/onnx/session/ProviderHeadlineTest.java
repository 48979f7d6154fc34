package dev.flux2.onnx.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnxruntime.OrtProvider;
import org.junit.jupiter.api.Test;

/**
 * Issue #33: on a machine without a usable GPU driver the WebGPU refusal came after Dawn's and the Vulkan loader's
 * lines, its cause at the end of a long sentence; "no WebGPU adapter" now leads it.
 */
class ProviderHeadlineTest {
    @Test
    void noWebGpuAdapterLeadsTheMessage() {
        String headline =
                ProviderSelector.headline(OrtProvider.WEBGPU, "Failed to get a WebGPU adapter: No supported adapters");
        assertTrue(headline.startsWith("no WebGPU adapter (no GPU, or no driver WebGPU can use"), headline);
    }

    @Test
    void otherProblemsKeepTheirOwnWords() {
        assertEquals("", ProviderSelector.headline(OrtProvider.WEBGPU, "the provider is not in this build"));
        assertEquals("", ProviderSelector.headline(OrtProvider.CUDA, "no adapter"));
    }
}
