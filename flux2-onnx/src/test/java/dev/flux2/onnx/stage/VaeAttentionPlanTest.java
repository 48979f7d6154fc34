package dev.flux2.onnx.stage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.ModelLoadException;
import dev.flux2.onnx.options.VaeAttentionMode;
import org.junit.jupiter.api.Test;

class VaeAttentionPlanTest {
    @Test
    void autoIsWholeWhileScoresFit64MiB() {
        // 5792² · 2 B = 67,094,528 B ≤ 64 MiB; 5793² · 2 B is above.
        assertTrue(
                VaeAttentionPlan.choose(VaeAttentionMode.AUTO, 1024, -1, 5792).whole());
        VaeAttentionPlan big = VaeAttentionPlan.choose(VaeAttentionMode.AUTO, 1024, -1, 16384);
        assertEquals(new VaeAttentionPlan(1024, false), big);
        assertEquals(16, big.chunks(16384));
    }

    @Test
    void chunkedRoundsTheChunkCountUp() {
        VaeAttentionPlan p = VaeAttentionPlan.choose(VaeAttentionMode.CHUNKED, 24, -1, 100);
        assertEquals(new VaeAttentionPlan(24, false), p);
        assertEquals(5, p.chunks(100));
    }

    @Test
    void chunkAsLargeAsTheSequenceIsWhole() {
        assertTrue(
                VaeAttentionPlan.choose(VaeAttentionMode.CHUNKED, 1024, -1, 256).whole());
    }

    @Test
    void wholeIsWhole() {
        assertEquals(
                new VaeAttentionPlan(16384, true), VaeAttentionPlan.choose(VaeAttentionMode.WHOLE, 1024, -1, 16384));
    }

    @Test
    void fixedChunkGraphDictatesTheRows() {
        assertEquals(new VaeAttentionPlan(64, false), VaeAttentionPlan.choose(VaeAttentionMode.AUTO, 1024, 64, 100));
        assertEquals(new VaeAttentionPlan(64, true), VaeAttentionPlan.choose(VaeAttentionMode.AUTO, 1024, 64, 64));
        assertThrows(ModelLoadException.class, () -> VaeAttentionPlan.checkCompatible(VaeAttentionMode.WHOLE, 0, 64));
        String msg = assertThrows(
                        ModelLoadException.class,
                        () -> VaeAttentionPlan.checkCompatible(VaeAttentionMode.CHUNKED, 32, 64))
                .getMessage();
        assertTrue(msg.contains("32") && msg.contains("64"), msg);
        VaeAttentionPlan.checkCompatible(VaeAttentionMode.CHUNKED, 64, 64);
        VaeAttentionPlan.checkCompatible(VaeAttentionMode.WHOLE, 0, -1);
    }
}
