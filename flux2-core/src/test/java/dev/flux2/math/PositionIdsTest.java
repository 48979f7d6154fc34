package dev.flux2.math;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flux2.testsupport.Goldens;
import org.junit.jupiter.api.Test;

class PositionIdsTest {
    private static final JsonNode GOLDEN = Goldens.load("latents_ids.json");

    @Test
    void imageIdsMatchGolden() {
        JsonNode ids = GOLDEN.get("latent_ids");
        int[] patchShape = Goldens.ints(GOLDEN.get("patchified").get("shape"));
        assertEquals(patchShape[2] * patchShape[3], Goldens.ints(ids.get("shape"))[1]);
        assertArrayEquals(Goldens.floats(ids.get("data")), PositionIds.image(patchShape[3], patchShape[2]));
    }

    @Test
    void textIdsMatchGolden() {
        JsonNode ids = GOLDEN.get("text_ids");
        int length = Goldens.ints(ids.get("shape"))[1];
        assertArrayEquals(Goldens.floats(ids.get("data")), PositionIds.text(length));
    }

    @Test
    void referenceIdsMatchGolden() {
        JsonNode ref = GOLDEN.get("reference_image_ids");
        JsonNode shapes = ref.get("ref_latent_shapes");
        float[][] parts = new float[shapes.size()][];
        for (int i = 0; i < parts.length; i++) {
            int[] s = Goldens.ints(shapes.get(i));
            parts[i] = PositionIds.reference(i, s[3], s[2]);
        }
        assertEquals(2, parts.length);
        assertArrayEquals(Goldens.floats(ref.get("data")), PositionIds.concat(parts));
    }

    @Test
    void concatKeepsOrderAndLengths() {
        float[] all = PositionIds.concat(PositionIds.image(2, 1), PositionIds.reference(2, 1, 1));
        assertArrayEquals(new float[] {0, 0, 0, 0, 0, 0, 1, 0, 30, 0, 0, 0}, all);
        assertEquals(0, PositionIds.concat().length);
        assertThrows(IllegalArgumentException.class, () -> PositionIds.concat(new float[3]));
    }

    @Test
    void fullSizeTextIdsEndAt511() {
        float[] ids = PositionIds.text(512);
        assertEquals(2048, ids.length);
        assertEquals(511f, ids[2047]);
        assertEquals(0f, ids[2044]);
    }

    @Test
    void rejectsBadArguments() {
        assertThrows(IllegalArgumentException.class, () -> PositionIds.image(4, 0));
        assertThrows(IllegalArgumentException.class, () -> PositionIds.text(0));
        assertThrows(IllegalArgumentException.class, () -> PositionIds.reference(-1, 2, 2));
    }
}
