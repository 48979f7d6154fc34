package dev.flux2.onnx.lora;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * LoRA applied to the tiny klein transformer's anonymously named ONNX graph, against diffusers + PEFT's predictions
 * on the same weights and inputs (src/test/resources/lora/tiny/make_tiny_reference.py): each layout, a stack, a
 * scale; scale 0 and no LoRA equal the base graph's prediction bit for bit; switching adapters on one session.
 */
class LoraGraphTest {
    /** fp32 on both sides; the branch's products are summed in another order than PEFT's, nothing else differs. */
    static final double TOLERANCE = 2e-5;

    @TempDir
    static Path folder;

    static TinyKleinGraph tiny;

    @BeforeAll
    static void open() throws Exception {
        tiny = new TinyKleinGraph(folder, "transformer.onnx");
    }

    @AfterAll
    static void close() throws Exception {
        tiny.close();
    }

    static LoraFactors.Adapter adapter(String file, double scale) {
        return new LoraFactors.Adapter(LoraFiles.read(TinyKleinGraph.FIXTURES.resolve(file)), scale);
    }

    static void assertClose(float[] expected, float[] actual, String what) {
        assertEquals(expected.length, actual.length, what);
        double worst = 0;
        double peak = 0;
        for (int i = 0; i < expected.length; i++) {
            worst = Math.max(worst, Math.abs(expected[i] - actual[i]));
            peak = Math.max(peak, Math.abs(expected[i]));
        }
        assertTrue(worst <= TOLERANCE * Math.max(1, peak), what + ": max |diff| " + worst + " (peak " + peak + ")");
    }

    @Test
    void theBaseGraphReproducesDiffusers() throws Exception {
        assertClose(tiny.ref("base"), tiny.predictBase(), "base");
    }

    @Test
    void everyLayoutMatchesDiffusers() throws Exception {
        for (String name : List.of("diffusers_all", "bfl", "kohya")) {
            float[] ours = tiny.predict(List.of(adapter(name + ".safetensors", 1.0)));
            assertClose(tiny.ref(name), ours, name);
        }
    }

    @Test
    void aStackAndAScaleMatchDiffusersSetAdapters() throws Exception {
        assertClose(
                tiny.ref("stack"),
                tiny.predict(List.of(adapter("diffusers_all.safetensors", 0.7), adapter("kohya.safetensors", -0.4))),
                "stack");
        assertClose(tiny.ref("scaled"), tiny.predict(List.of(adapter("diffusers_all.safetensors", 0.35))), "scaled");
    }

    @Test
    void scaleZeroAndNoLoraEqualTheBasePredictionBitForBit() throws Exception {
        float[] base = tiny.predictBase();
        float[] zero = tiny.predict(List.of(adapter("diffusers_all.safetensors", 0.0)));
        float[] none = tiny.predict(List.of());
        // The LoRA graph adds an exact zero branch; the base graph (what requests without LoRA run) is untouched.
        assertArrayEquals(base, zero);
        assertArrayEquals(base, none);
    }

    @Test
    void switchingAdaptersOnOneSessionGivesEachItsOwnPrediction() throws Exception {
        float[] bfl = tiny.predict(List.of(adapter("bfl.safetensors", 1.0)));
        float[] kohya = tiny.predict(List.of(adapter("kohya.safetensors", 1.0)));
        float[] bflAgain = tiny.predict(List.of(adapter("bfl.safetensors", 1.0)));
        assertArrayEquals(bfl, bflAgain);
        assertClose(tiny.ref("kohya"), kohya, "kohya after bfl");
    }
}
