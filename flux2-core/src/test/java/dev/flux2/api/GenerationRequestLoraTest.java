package dev.flux2.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The LoRA list of {@link GenerationRequest}: kept in order, part of the value, checked in build(). */
class GenerationRequestLoraTest {
    private static final Path STYLE = Path.of("style.safetensors");
    private static final Path FACE = Path.of("face.safetensors");

    @Test
    void lorasKeepTheirOrderAndScales() {
        GenerationRequest r = GenerationRequest.builder("p")
                .lora(STYLE, 0.8)
                .lora(FACE, -0.5)
                .lora(STYLE, 0.0)
                .build();
        assertEquals(List.of(new LoraSpec(STYLE, 0.8), new LoraSpec(FACE, -0.5), new LoraSpec(STYLE, 0.0)), r.loras());
        assertEquals(r, r.toBuilder().build());
        assertTrue(r.toString().contains("loras=[style.safetensors:0.8, face.safetensors:-0.5"), r.toString());
        assertTrue(GenerationRequest.builder("p").build().loras().isEmpty());
    }

    @Test
    void lorasArePartOfTheValue() {
        GenerationRequest a =
                GenerationRequest.builder("p").lora(STYLE, 1).lora(FACE, 1).build();
        assertNotEquals(
                a, GenerationRequest.builder("p").lora(FACE, 1).lora(STYLE, 1).build(), "order matters");
        assertNotEquals(
                a, GenerationRequest.builder("p").lora(STYLE, 1).lora(FACE, 0.5).build());
        assertNotEquals(a, GenerationRequest.builder("p").build());
        GenerationRequest replaced =
                a.toBuilder().loras(List.of(new LoraSpec(FACE, 2))).build();
        assertEquals(List.of(new LoraSpec(FACE, 2)), replaced.loras());
    }

    @Test
    void buildRefusesANonFiniteScaleNamingTheLora() {
        GenerationRequest.Builder b =
                GenerationRequest.builder("p").lora(STYLE, 1).lora(FACE, Double.NaN);
        InvalidRequestException e = assertThrows(InvalidRequestException.class, b::build);
        assertTrue(
                e.getMessage().contains("lora 1")
                        && e.getMessage().contains("face.safetensors")
                        && e.getMessage().contains("NaN"),
                e.getMessage());
        assertThrows(
                InvalidRequestException.class,
                () -> GenerationRequest.builder("p")
                        .lora(STYLE, Double.POSITIVE_INFINITY)
                        .build());
    }

    @Test
    void buildRefusesALoraWithoutAFile() {
        GenerationRequest.Builder b = GenerationRequest.builder("p").lora(null, 1);
        InvalidRequestException e = assertThrows(InvalidRequestException.class, b::build);
        assertTrue(e.getMessage().contains("lora 0 has no file"), e.getMessage());
    }
}
