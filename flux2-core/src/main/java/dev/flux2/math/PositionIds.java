package dev.flux2.math;

import java.util.Objects;

/**
 * The 4-axis rotary position ids (t, h, w, l) of FLUX.2, as float32, four values per token
 * (docs/pipeline-reference.md §5). Stateless and thread-safe; every method returns a new array.
 */
public final class PositionIds {
    /** Values per token: t, h, w, l. */
    public static final int AXES = 4;
    /** Reference i gets the time offset {@code REFERENCE_TIME_STEP·(i + 1)}. */
    public static final int REFERENCE_TIME_STEP = 10;

    private PositionIds() {}

    /**
     * Ids of the noise tokens: {@code (0, r, c, 0)} in row-major order, matching {@link LatentLayout#pack}.
     *
     * @param gridWidth token columns (W/16), at least 1
     * @param gridHeight token rows (H/16), at least 1
     * @return {@code 4·gridWidth·gridHeight} values
     */
    public static float[] image(int gridWidth, int gridHeight) {
        return grid(0, gridWidth, gridHeight);
    }

    /**
     * Ids of the text tokens: {@code (0, 0, 0, l)} for l = 0..length−1 (pads included).
     *
     * @param length number of text tokens (512 for klein), at least 1
     * @return {@code 4·length} values
     */
    public static float[] text(int length) {
        if (length < 1) {
            throw new IllegalArgumentException("text length must be at least 1, got " + length);
        }
        float[] ids = new float[AXES * length];
        for (int l = 0; l < length; l++) {
            ids[AXES * l + 3] = l;
        }
        return ids;
    }

    /**
     * Ids of a reference image's tokens: {@code (10·(referenceIndex+1), r, c, 0)} in row-major order.
     *
     * @param referenceIndex 0 for the first reference, 1 for the second, …
     * @param gridWidth the reference's token columns, at least 1
     * @param gridHeight the reference's token rows, at least 1
     * @return {@code 4·gridWidth·gridHeight} values
     */
    public static float[] reference(int referenceIndex, int gridWidth, int gridHeight) {
        if (referenceIndex < 0) {
            throw new IllegalArgumentException("referenceIndex must be non-negative, got " + referenceIndex);
        }
        return grid(REFERENCE_TIME_STEP * (referenceIndex + 1), gridWidth, gridHeight);
    }

    /**
     * @param parts id arrays, each a whole number of tokens
     * @return the parts one after another, in argument order
     */
    public static float[] concat(float[]... parts) {
        Objects.requireNonNull(parts, "parts");
        int total = 0;
        for (int i = 0; i < parts.length; i++) {
            Objects.requireNonNull(parts[i], "parts[" + i + "]");
            if (parts[i].length % AXES != 0) {
                throw new IllegalArgumentException(
                        "parts[" + i + "] must hold 4 values per token, got length " + parts[i].length);
            }
            total = Math.addExact(total, parts[i].length);
        }
        float[] out = new float[total];
        int at = 0;
        for (float[] part : parts) {
            System.arraycopy(part, 0, out, at, part.length);
            at += part.length;
        }
        return out;
    }

    private static float[] grid(float t, int gridWidth, int gridHeight) {
        if (gridHeight < 1 || gridWidth < 1) {
            throw new IllegalArgumentException("token grid must be at least 1x1, got " + gridWidth + "x" + gridHeight);
        }
        float[] ids = new float[Math.multiplyExact(AXES, Math.multiplyExact(gridHeight, gridWidth))];
        int k = 0;
        for (int r = 0; r < gridHeight; r++) {
            for (int c = 0; c < gridWidth; c++) {
                ids[k] = t;
                ids[k + 1] = r;
                ids[k + 2] = c;
                k += AXES;
            }
        }
        return ids;
    }
}
