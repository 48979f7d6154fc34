package dev.flux2.onnx.stage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.ModelLoadException;
import dev.flux2.onnx.options.VaeAttentionMode;
import org.junit.jupiter.api.Test;

class AttentionPlanTest {
    @Test
    void autoIsWholeWhileScoresFit64MiB() {
        // 5792² · 2 B = 67,094,528 B ≤ 64 MiB; 5793² · 2 B is above.
        assertTrue(AttentionPlan.choose(VaeAttentionMode.AUTO, 1024, -1, 5792).whole());
        AttentionPlan big = AttentionPlan.choose(VaeAttentionMode.AUTO, 1024, -1, 16384);
        assertEquals(new AttentionPlan(1024, false), big);
        assertEquals(16, big.chunks(16384));
    }

    @Test
    void chunkedRoundsTheChunkCountUp() {
        AttentionPlan p = AttentionPlan.choose(VaeAttentionMode.CHUNKED, 24, -1, 100);
        assertEquals(new AttentionPlan(24, false), p);
        assertEquals(5, p.chunks(100));
    }

    @Test
    void chunkAsLargeAsTheSequenceIsWhole() {
        assertTrue(AttentionPlan.choose(VaeAttentionMode.CHUNKED, 1024, -1, 256).whole());
    }

    @Test
    void wholeIsWhole() {
        assertEquals(new AttentionPlan(16384, true), AttentionPlan.choose(VaeAttentionMode.WHOLE, 1024, -1, 16384));
    }

    @Test
    void fixedChunkGraphDictatesTheRows() {
        assertEquals(new AttentionPlan(64, false), AttentionPlan.choose(VaeAttentionMode.AUTO, 1024, 64, 100));
        assertEquals(new AttentionPlan(64, true), AttentionPlan.choose(VaeAttentionMode.AUTO, 1024, 64, 64));
        assertThrows(ModelLoadException.class, () -> AttentionPlan.checkCompatible(VaeAttentionMode.WHOLE, 0, 64));
        String msg = assertThrows(
                        ModelLoadException.class, () -> AttentionPlan.checkCompatible(VaeAttentionMode.CHUNKED, 32, 64))
                .getMessage();
        assertTrue(msg.contains("32") && msg.contains("64"), msg);
        AttentionPlan.checkCompatible(VaeAttentionMode.CHUNKED, 64, 64);
        AttentionPlan.checkCompatible(VaeAttentionMode.WHOLE, 0, -1);
    }
}
