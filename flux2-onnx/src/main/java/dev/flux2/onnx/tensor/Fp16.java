package dev.flux2.onnx.tensor;

import ai.onnxruntime.platform.Fp16Conversions;

/**
 * IEEE half-precision conversion as the graphs' fp16 tensors need it.
 *
 * <p>Conversion uses ONNX Runtime's scalar {@link Fp16Conversions} (round to nearest even; {@code Float}'s intrinsic on
 * JDK 20+), which was faster than its bulk buffer methods (docs/design-notes.md §3). Values beyond the fp16 range are
 * clamped to ±65504 first, as the browser engine does, instead of becoming ±inf; NaN stays NaN. Stateless and
 * thread-safe.
 */
final class Fp16 {
    /** The largest finite fp16 value. */
    public static final float MAX = 65504f;

    private Fp16() {}

    /**
     * @param value a float
     * @return its fp16 bits, saturated at ±65504
     */
    public static short fromFloat(float value) {
        float v = value > MAX ? MAX : (value < -MAX ? -MAX : value);
        return Fp16Conversions.floatToFp16(v);
    }

    /**
     * @param bits fp16 bits
     * @return the float value
     */
    public static float toFloat(short bits) {
        return Fp16Conversions.fp16ToFloat(bits);
    }

    /**
     * @param value a float
     * @return the value after a round trip through fp16 (saturating), what a graph sees when fed it
     */
    static float round(float value) {
        return toFloat(fromFloat(value));
    }
}
