package dev.flux2.testkit;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The text encoder graph (MatMulNBits over two external-data shards) against the reference. Single graph, fp32
 * inside, one fp16 rounding at the output: ≤ 1 fp16 ulp.
 */
class TextEncoderGraphTest {
    @TempDir
    Path dir;

    @Test
    void matchesReferenceAtTwoTextLengths() throws Exception {
        for (int length : new int[] {64, 23}) {
            SyntheticBundleSpec spec = SyntheticBundleSpec.builder()
                    .textSequenceLength(length)
                    .contextDim(40)
                    .build();
            SyntheticBundle bundle = SyntheticBundleWriter.write(spec, dir.resolve("l" + length));
            Random rnd = new Random(length);
            long[] ids = new long[length];
            long[] mask = new long[length];
            int real = length * 2 / 3;
            for (int i = 0; i < length; i++) {
                ids[i] = i < real ? rnd.nextInt(151_669) : 151_643;
                mask[i] = i < real ? 1 : 0;
            }
            float[] expected = bundle.reference().textContext(ids, mask);
            try (OrtHarness ort = OrtHarness.open(bundle.graphFile("text_encoder"))) {
                ort.i64("input_ids", ids, 1, length).i64("attention_mask", mask, 1, length);
                float[] actual = ort.run().get("ctx");
                double worst = Agreement.assertClose("ctx L=" + length, expected, actual, Agreement.SINGLE);
                assertTrue(
                        Agreement.maxAbs(expected) > 0.3 && Agreement.maxAbs(expected) < 4,
                        "ctx values should be O(1): max " + Agreement.maxAbs(expected));
                System.out.println("text encoder L=" + length + ": worst " + worst + " ulps");
            }
        }
    }

    @Test
    void everyIdAndTheMaskChangeTheContext() {
        SyntheticReference ref =
                new SyntheticReference(SyntheticBundleSpec.builder().build());
        long[] ids = new long[64];
        long[] mask = new long[64];
        for (int i = 0; i < 64; i++) {
            ids[i] = 1000 + 37L * i;
            mask[i] = i < 40 ? 1 : 0;
        }
        float[] base = ref.textContext(ids, mask);
        int d = 32;
        for (int pos : new int[] {0, 17, 39}) {
            for (long delta : new long[] {1, 97, 97 * 61}) {
                long[] changed = ids.clone();
                changed[pos] += delta;
                float[] other = ref.textContext(changed, mask);
                assertTrue(rowDiff(base, other, pos, d) > 0.01, "id change at " + pos + " by " + delta);
                assertTrue(rowDiff(base, other, pos + 1, d) == 0, "other rows unchanged");
            }
        }
        long[] shorter = mask.clone();
        shorter[39] = 0;
        assertTrue(rowDiff(base, ref.textContext(ids, shorter), 39, d) > 0.01, "mask change");
        // Swapping two ids must be visible (positions enter the features).
        long[] swapped = ids.clone();
        swapped[3] = ids[4];
        swapped[4] = ids[3];
        assertTrue(!Arrays.equals(base, ref.textContext(swapped, mask)));
    }

    private static double rowDiff(float[] a, float[] b, int row, int d) {
        double m = 0;
        for (int j = 0; j < d; j++) {
            m = Math.max(m, Math.abs(a[row * d + j] - b[row * d + j]));
        }
        return m;
    }
}
