package dev.flux2.math;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flux2.spi.LatentGrid;
import dev.flux2.testsupport.Goldens;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LatentLayoutTest {
    private static LatentGrid grid(JsonNode node) {
        int[] shape = Goldens.ints(node.get("shape"));
        assertEquals(1, shape[0], "batch");
        return new LatentGrid(Goldens.floats(node.get("data")), shape[1], shape[3], shape[2]);
    }

    @Test
    void reproducesGoldenPatchifyAndPackExactly() {
        JsonNode g = Goldens.load("latents_ids.json");
        LatentGrid z = grid(g.get("vae_latent"));
        float[] zCopy = z.data().clone();

        LatentGrid p = LatentLayout.patchify(z);
        LatentGrid goldenP = grid(g.get("patchified"));
        assertEquals(goldenP.channels(), p.channels());
        assertEquals(goldenP.height(), p.height());
        assertEquals(goldenP.width(), p.width());
        assertArrayEquals(goldenP.data(), p.data(), "patchified");

        float[] packed = LatentLayout.pack(p);
        int[] packedShape = Goldens.ints(g.get("packed").get("shape"));
        assertEquals(p.height() * p.width(), packedShape[1]);
        assertEquals(p.channels(), packedShape[2]);
        assertArrayEquals(Goldens.floats(g.get("packed").get("data")), packed, "packed");
        assertArrayEquals(zCopy, z.data(), "input must not be modified");
    }

    @Test
    void unpackAndUnpatchifyInvertTheGolden() {
        JsonNode g = Goldens.load("latents_ids.json");
        float[] packed = Goldens.floats(g.get("packed").get("data"));
        LatentGrid p = LatentLayout.unpack(packed, 128, 3, 2);
        assertArrayEquals(Goldens.floats(g.get("patchified").get("data")), p.data());
        LatentGrid z = LatentLayout.unpatchify(p);
        assertEquals(32, z.channels());
        assertEquals(4, z.height());
        assertEquals(6, z.width());
        assertArrayEquals(Goldens.floats(g.get("vae_latent").get("data")), z.data());
    }

    /** docs/pipeline-reference.md §5: at 256², token 37 is (0,2,5,0) and its feature 6 is z[1, 5, 10]. */
    @Test
    void workedMappingAt256() {
        int c = 32;
        int side = 32; // 256 / 8
        float[] data = new float[c * side * side];
        for (int i = 0; i < data.length; i++) {
            data[i] = i;
        }
        float[] tokens = LatentLayout.pack(LatentLayout.patchify(new LatentGrid(data, c, side, side)));
        float[] ids = PositionIds.image(16, 16);
        assertArrayEquals(new float[] {0, 2, 5, 0}, java.util.Arrays.copyOfRange(ids, 4 * 37, 4 * 38));
        assertEquals((1 * side + 5) * side + 10, tokens[37 * 128 + 6], 0f);
    }

    @Test
    void endToEndFormulaHoldsEverywhere() {
        int c = 3;
        int h = 3;
        int w = 5;
        float[] data = new float[c * 2 * h * 2 * w];
        Random random = new Random(7);
        for (int i = 0; i < data.length; i++) {
            data[i] = random.nextFloat();
        }
        LatentGrid z = new LatentGrid(data, c, 2 * w, 2 * h);
        float[] tokens = LatentLayout.pack(LatentLayout.patchify(z));
        for (int ch = 0; ch < c; ch++) {
            for (int i = 0; i < h; i++) {
                for (int j = 0; j < w; j++) {
                    for (int dy = 0; dy < 2; dy++) {
                        for (int dx = 0; dx < 2; dx++) {
                            assertEquals(
                                    z.get(ch, 2 * i + dy, 2 * j + dx),
                                    tokens[(i * w + j) * 4 * c + 4 * ch + 2 * dy + dx],
                                    0f);
                        }
                    }
                }
            }
        }
        assertArrayEquals(
                data,
                LatentLayout.unpatchify(LatentLayout.unpack(tokens, 4 * c, w, h))
                        .data());
    }

    @Test
    void rejectsBadShapes() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> LatentLayout.patchify(new LatentGrid(new float[2 * 3 * 4], 2, 3, 4)));
        assertEquals(true, e.getMessage().contains("3x4"), e.getMessage());
        assertThrows(
                IllegalArgumentException.class,
                () -> LatentLayout.patchify(new LatentGrid(new float[2 * 4 * 5], 2, 5, 4)));
        assertThrows(
                IllegalArgumentException.class, () -> LatentLayout.unpatchify(new LatentGrid(new float[6], 6, 1, 1)));
        assertThrows(IllegalArgumentException.class, () -> LatentLayout.unpack(new float[10], 128, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> LatentLayout.unpack(new float[0], 0, 1, 1));
    }
}
