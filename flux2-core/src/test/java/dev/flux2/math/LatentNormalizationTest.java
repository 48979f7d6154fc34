package dev.flux2.math;

import static dev.flux2.testsupport.ArrayAsserts.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flux2.testsupport.Goldens;
import org.junit.jupiter.api.Test;

class LatentNormalizationTest {
    /** README tolerance for bn. */
    private static final double TOL = 1e-6;

    private static final JsonNode GOLDEN = Goldens.load("latents_ids.json");

    private static LatentNormalization goldenStats() {
        JsonNode bn = GOLDEN.get("bn");
        return new LatentNormalization(
                Goldens.floats(bn.get("running_mean")),
                Goldens.floats(bn.get("running_var")),
                bn.get("eps").asDouble());
    }

    private static LatentGrid goldenPatchified() {
        int[] s = Goldens.ints(GOLDEN.get("patchified").get("shape"));
        return new LatentGrid(Goldens.floats(GOLDEN.get("patchified").get("data")), s[1], s[2], s[3]);
    }

    @Test
    void normalizeMatchesGolden() {
        LatentNormalization bn = goldenStats();
        assertEquals(128, bn.channels());
        assertEquals(1e-4, bn.eps());
        LatentGrid p = goldenPatchified();
        float[] before = p.data().clone();
        LatentGrid n = bn.normalize(p);
        assertArrayEquals(
                Goldens.ints(GOLDEN.get("bn").get("shape")), new int[] {1, n.channels(), n.height(), n.width()});
        assertClose(Goldens.floats(GOLDEN.get("bn").get("normalized")), n.data(), TOL, "bn normalized");
        assertArrayEquals(before, p.data(), "input must not be modified");
    }

    @Test
    void denormalizeInvertsGolden() {
        LatentNormalization bn = goldenStats();
        int[] s = Goldens.ints(GOLDEN.get("bn").get("shape"));
        LatentGrid normalized = new LatentGrid(Goldens.floats(GOLDEN.get("bn").get("normalized")), s[1], s[2], s[3]);
        assertClose(goldenPatchified().data(), bn.denormalize(normalized).data(), 2e-6, "bn denormalized");
    }

    @Test
    void formulaOnAHandExample() {
        LatentNormalization bn = new LatentNormalization(new float[] {1f, -2f}, new float[] {3.9999f, 0.0099f}, 1e-4);
        LatentGrid p = new LatentGrid(new float[] {5f, 1f, -2f, -1.9f}, 2, 1, 2);
        // std = sqrt(var + eps) = 2 and 0.1
        assertClose(new float[] {2f, 0f, 0f, 1f}, bn.normalize(p).data(), 1e-5, "hand example");
    }

    @Test
    void copiesItsArrays() {
        float[] mean = {0f, 1f};
        float[] var = {1f, 1f};
        LatentNormalization bn = new LatentNormalization(mean, var, 0);
        mean[0] = 99f;
        bn.runningVar()[0] = 99f;
        assertArrayEquals(new float[] {0f, 1f}, bn.runningMean());
        assertArrayEquals(new float[] {1f, 1f}, bn.runningVar());
        assertEquals(new LatentNormalization(new float[] {0f, 1f}, new float[] {1f, 1f}, 0), bn);
    }

    @Test
    void rejectsBadInput() {
        assertThrows(IllegalArgumentException.class, () -> new LatentNormalization(new float[2], new float[3], 1e-4));
        assertThrows(
                IllegalArgumentException.class, () -> new LatentNormalization(new float[1], new float[] {-1f}, 1e-4));
        assertThrows(
                IllegalArgumentException.class, () -> new LatentNormalization(new float[1], new float[1], Double.NaN));
        assertThrows(
                IllegalArgumentException.class, () -> goldenStats().normalize(new LatentGrid(new float[32], 32, 1, 1)));
    }
}
