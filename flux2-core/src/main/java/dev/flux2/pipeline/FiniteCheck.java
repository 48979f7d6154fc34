package dev.flux2.pipeline;

import dev.flux2.api.InferenceException;
import dev.flux2.math.FiniteValues;
import java.util.Locale;

/**
 * Stops a generation whose stage produced NaN or infinity (poisoned weights, a broken runtime), instead of letting it
 * end in a black or garbage image that looks like success. Scans the host-side arrays the engine already holds (no
 * copy); the cost is measured in docs/limits.md §3. Stateless and thread-safe.
 */
final class FiniteCheck {
    private FiniteCheck() {}

    /**
     * @param values the stage's output
     * @param count how many leading values to check
     * @param what the stage and step, for the message ("the transformer's prediction at denoise step 2/4 of image
     *     1")
     * @throws InferenceException when a value is NaN or infinite
     */
    static void require(float[] values, int count, String what) {
        if (!FiniteValues.allFinite(values, count)) {
            throw failure(values, count, what);
        }
    }

    private static InferenceException failure(float[] values, int count, String what) {
        int nan = 0;
        int inf = 0;
        int first = -1;
        for (int i = 0; i < count; i++) {
            if (Float.isNaN(values[i])) {
                nan++;
            } else if (Float.isInfinite(values[i])) {
                inf++;
            } else {
                continue;
            }
            if (first < 0) {
                first = i;
            }
        }
        return new InferenceException(String.format(
                Locale.ROOT,
                "%s holds non-finite values (%d NaN, %d infinite of %d; the first at index %d): the model's weights or"
                        + " the runtime produced them, so the generation was stopped instead of returning a wrong image"
                        + " (check the model files with 'flux2 verify')",
                what,
                nan,
                inf,
                count,
                first));
    }
}
