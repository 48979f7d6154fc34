package dev.flux2.pipeline;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.GenerationRequest;
import dev.flux2.api.InvalidRequestException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Until the stages feed LoRA factors, a request with LoRAs is refused, never run without them. */
class LoraNotYetAppliedTest {
    @Test
    void aRequestWithALoraIsRefusedBeforeAnyModelWork() {
        FakeBackend backend = new FakeBackend(FakeModel.distilledModel(), FakeBackend.FUSED_OFF);
        try (GenerationEngine engine = new GenerationEngine(backend)) {
            InvalidRequestException e = assertThrows(
                    InvalidRequestException.class,
                    () -> engine.generate(GenerationRequest.builder("p")
                            .size(64, 48)
                            .seed(1)
                            .lora(Path.of("style.safetensors"), 0.8)
                            .build()));
            assertTrue(
                    e.getMessage().contains("style.safetensors:0.8")
                            && e.getMessage().contains("#30"),
                    e.getMessage());
        }
    }
}
