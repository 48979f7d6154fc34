package dev.flux2.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flux2.testkit.ReferenceMath;
import dev.flux2.testsupport.Goldens;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** Pins the test-side reference math to the golden vectors, so engine tests compare against trusted values. */
class ReferenceMathTest {

    private static JsonNode golden(String file) {
        return Goldens.load(file);
    }

    private static float[] floats(JsonNode array) {
        float[] values = new float[array.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = (float) array.get(i).asDouble();
        }
        return values;
    }

    @Test
    void schedulesMatchTheGoldens() throws IOException {
        int checked = 0;
        for (JsonNode s : golden("schedule.json").get("schedules")) {
            int seqLen = s.get("image_seq_len").asInt();
            float[] expected = floats(s.get("sigmas"));
            int steps = expected.length - 1;
            assertEquals(s.get("mu").asDouble(), ReferenceMath.mu(seqLen, steps), 1e-9);
            float[] actual = ReferenceMath.sigmas(seqLen, steps);
            for (int i = 0; i < expected.length; i++) {
                assertEquals(expected[i], actual[i], 2e-7f * Math.abs(expected[i]), "seq " + seqLen + " step " + i);
            }
            checked++;
        }
        assertEquals(48, checked);
    }

    @Test
    void strengthTableMatchesTheGoldens() throws IOException {
        for (JsonNode s : golden("img2img_euler.json").get("strength")) {
            assertEquals(
                    s.get("t_start").asInt(),
                    ReferenceMath.startIndex(
                            s.get("steps").asInt(), s.get("strength").asDouble()),
                    s.toString());
        }
    }

    @Test
    void packingAndIdsMatchTheGoldens() throws IOException {
        JsonNode g = golden("latents_ids.json");
        float[] patchified = floats(g.get("patchified").get("data"));
        float[] packed = floats(g.get("packed").get("data"));
        assertArrayEquals(packed, ReferenceMath.pack(patchified, 128, 2, 3));
        assertArrayEquals(patchified, ReferenceMath.unpack(packed, 128, 2, 3));
        assertArrayEquals(floats(g.get("latent_ids").get("data")), ReferenceMath.imageIds(2, 3));
        assertArrayEquals(floats(g.get("text_ids").get("data")), ReferenceMath.textIds(5));
        float[] refs = floats(g.get("reference_image_ids").get("data"));
        float[] mine = new float[refs.length];
        System.arraycopy(ReferenceMath.referenceIds(0, 2, 2), 0, mine, 0, 16);
        System.arraycopy(ReferenceMath.referenceIds(1, 3, 1), 0, mine, 16, 12);
        assertArrayEquals(refs, mine);
    }
}
