package dev.flux2.onnx.tensor;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnxruntime.OnnxJavaType;
import ai.onnxruntime.OrtEnvironment;
import dev.flux2.onnx.bundle.ElementType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

class TensorBufferTest {
    private static final OrtEnvironment ENV = OrtEnvironment.getEnvironment();

    @Test
    void fp16BitPatternsAreIeeeHalf() {
        // Known encodings: 1.0 = 0x3C00, -2.0 = 0xC000, 65504 = 0x7BFF, 2^-24 = 0x0001 (smallest subnormal).
        assertEquals((short) 0x3C00, Fp16.fromFloat(1.0f));
        assertEquals((short) 0xC000, Fp16.fromFloat(-2.0f));
        assertEquals((short) 0x7BFF, Fp16.fromFloat(65504f));
        assertEquals((short) 0x0001, Fp16.fromFloat(0x1p-24f));
        // 1 + 2^-11 is exactly halfway between 1 and 1 + 2^-10: ties round to the even mantissa (1.0).
        assertEquals((short) 0x3C00, Fp16.fromFloat(1f + 0x1p-11f));
        assertEquals((short) 0x3C02, Fp16.fromFloat(1f + 3 * 0x1p-11f));
        assertEquals(0.9555664f, Fp16.round(0.9553907513618469f), 0f, "docs/pipeline-reference.md §13 fp16 sigma");
    }

    @Test
    void fp16SaturatesInsteadOfOverflowing() {
        assertEquals((short) 0x7BFF, Fp16.fromFloat(1e6f));
        assertEquals((short) 0xFBFF, Fp16.fromFloat(Float.NEGATIVE_INFINITY));
        assertTrue(Float.isNaN(Fp16.toFloat(Fp16.fromFloat(Float.NaN))));
    }

    @Test
    void fp16TensorRoundTripsThroughNativeBytes() {
        float[] values = new float[20000]; // more than one scratch block
        for (int i = 0; i < values.length; i++) {
            values[i] = (i - 10000) * 0.37f;
        }
        try (TensorBuffer t = TensorBuffer.allocate(ENV, ElementType.FLOAT16, 2, 10000)) {
            assertEquals(OnnxJavaType.FLOAT16, t.tensor().getInfo().type);
            assertFalse(t.tensor().ownsBuffer(), "a direct buffer must be used without copy");
            t.writeFloats(values, 0, values.length, 0);
            float[] back = new float[values.length];
            t.readFloats(0, back, 0, back.length);
            for (int i = 0; i < values.length; i++) {
                assertEquals(Fp16.round(values[i]), back[i], 0f, "element " + i);
            }
            // The tensor ONNX Runtime sees holds the same bits, in native order.
            ByteBuffer bytes = t.bytes();
            assertEquals(ByteOrder.nativeOrder(), bytes.order());
            assertEquals(Fp16.fromFloat(values[12345]), bytes.getShort(12345 * 2));
            float[] viaOrt = new float[values.length];
            t.tensor().getFloatBuffer().get(viaOrt);
            assertArrayEquals(back, viaOrt);
        }
    }

    @Test
    void fp32TensorIsExact() {
        try (TensorBuffer t = TensorBuffer.allocate(ENV, ElementType.FLOAT, 3)) {
            t.writeFloats(new float[] {1e-9f, 7e5f, -3.25f}, 0, 3, 0);
            float[] back = new float[3];
            t.readFloats(0, back, 0, 3);
            assertArrayEquals(new float[] {1e-9f, 7e5f, -3.25f}, back);
        }
    }

    @Test
    void int64WriteAndCopyAndZero() {
        try (TensorBuffer ids = TensorBuffer.allocate(ENV, ElementType.INT64, 1, 4)) {
            ids.writeLongs(new long[] {151644, 872, 198, 151643});
            long[] back = new long[4];
            ids.tensor().getLongBuffer().get(back);
            assertArrayEquals(new long[] {151644, 872, 198, 151643}, back);
        }
        try (TensorBuffer src = TensorBuffer.allocate(ENV, ElementType.FLOAT, 6);
                TensorBuffer dst = TensorBuffer.allocate(ENV, ElementType.FLOAT, 4)) {
            src.writeFloats(new float[] {0, 1, 2, 3, 4, 5}, 0, 6, 0);
            dst.writeFloats(new float[] {9, 9, 9, 9}, 0, 4, 0);
            dst.copyElements(src.bytes(), 2, 1, 2);
            dst.zero(3, 1);
            float[] back = new float[4];
            dst.readFloats(0, back, 0, 4);
            assertArrayEquals(new float[] {9, 2, 3, 0}, back);
        }
    }

    @Test
    void closeIsIdempotentAndUseAfterCloseFails() {
        TensorBuffer t = TensorBuffer.allocate(ENV, ElementType.FLOAT, 1);
        t.close();
        t.close();
        assertThrows(IllegalStateException.class, t::tensor);
        assertThrows(IllegalStateException.class, () -> t.writeFloats(new float[1], 0, 1, 0));
        assertThrows(IllegalStateException.class, () -> t.readFloats(0, new float[1], 0, 1));
        // A closed buffer may already back another tensor (DirectBufferPool): writing it must fail too.
        assertThrows(IllegalStateException.class, () -> t.zero(0, 1));
        assertThrows(
                IllegalStateException.class,
                () -> t.copyElements(
                        java.nio.ByteBuffer.allocateDirect(4).order(java.nio.ByteOrder.nativeOrder()), 0, 0, 1));
        assertThrows(IndexOutOfBoundsException.class, () -> {
            try (TensorBuffer u = TensorBuffer.allocate(ENV, ElementType.FLOAT, 2)) {
                u.writeFloats(new float[3], 0, 3, 0);
            }
        });
    }

    @Test
    void bfloat16AndDoubleTensorsAreWhatOnnxRuntimeReads() {
        // bf16 keeps the top 16 bits of the fp32 pattern, rounding the rest to nearest even (1 + 2^-8 is a tie).
        float[] values = {1f, 1f + 0x1p-8f, 1f + 3 * 0x1p-8f, -3.1415927f, 1e30f};
        float[] bf16 = {
            1f, 1f, 1f + 0x1p-6f, -3.140625f, Float.intBitsToFloat(Float.floatToIntBits(1e30f) + 0x8000 & 0xffff0000)
        };
        try (TensorBuffer t = TensorBuffer.allocate(ENV, ElementType.BFLOAT16, values.length)) {
            assertEquals(OnnxJavaType.BFLOAT16, t.tensor().getInfo().type);
            t.writeFloats(values, 0, values.length, 0);
            float[] back = new float[values.length];
            t.readFloats(0, back, 0, back.length);
            assertArrayEquals(bf16, back);
            float[] viaOrt = new float[values.length];
            t.tensor().getFloatBuffer().get(viaOrt);
            assertArrayEquals(bf16, viaOrt, "ONNX Runtime widens the same bits");
        }
        try (TensorBuffer t = TensorBuffer.allocate(ENV, ElementType.DOUBLE, 2)) {
            t.writeFloats(new float[] {0.1f, -7.5f}, 0, 2, 0);
            assertEquals((double) 0.1f, t.tensor().getDoubleBuffer().get(0), 0.0);
            float[] back = new float[2];
            t.readFloats(0, back, 0, 2);
            assertArrayEquals(new float[] {0.1f, -7.5f}, back);
        }
    }

    @Test
    void idsAreWrittenIntoIntegerTensorsOnlyWhenWhole() {
        try (TensorBuffer t = TensorBuffer.allocate(ENV, ElementType.INT64, 3)) {
            t.writeFloats(new float[] {0, 12, 511}, 0, 3, 0);
            long[] back = new long[3];
            t.tensor().getLongBuffer().get(back);
            assertArrayEquals(new long[] {0, 12, 511}, back);
            String msg = assertThrows(IllegalArgumentException.class, () -> t.writeFloats(new float[] {0.5f}, 0, 1, 0))
                    .getMessage();
            assertTrue(msg.contains("0.5") && msg.contains("INT64"), msg);
        }
        try (TensorBuffer t = TensorBuffer.allocate(ENV, ElementType.INT32, 2)) {
            t.writeLongs(new long[] {151643, 7});
            int[] back = new int[2];
            t.tensor().getIntBuffer().get(back);
            assertArrayEquals(new int[] {151643, 7}, back);
            assertThrows(IllegalArgumentException.class, () -> t.writeLongs(new long[] {1L << 40, 0}));
            t.writeFloats(new float[] {3, 4}, 0, 2, 0);
            float[] f = new float[2];
            t.readFloats(0, f, 0, 2);
            assertArrayEquals(new float[] {3, 4}, f);
        }
        String msg = assertThrows(
                        IllegalArgumentException.class, () -> TensorBuffer.allocate(ENV, ElementType.STRING, 1))
                .getMessage();
        assertTrue(msg.contains("STRING") && msg.contains("FLOAT16"), msg);
    }

    @Test
    void convertedCopiesRoundOnlyWhereTheTargetTypeMust() {
        float[] values = new float[10000];
        for (int i = 0; i < values.length; i++) {
            values[i] = (i - 5000) * 0.0123f + 1e-4f;
        }
        try (TensorBuffer fp32 = TensorBuffer.allocate(ENV, ElementType.FLOAT, 2, 5000)) {
            fp32.writeFloats(values, 0, values.length, 0);
            try (TensorBuffer half = TensorBuffer.convertedCopy(ENV, fp32, ElementType.FLOAT16);
                    TensorBuffer wide = TensorBuffer.convertedCopy(ENV, half.tensor(), ElementType.DOUBLE);
                    TensorBuffer back = TensorBuffer.convertedCopy(ENV, wide.tensor(), ElementType.FLOAT)) {
                assertArrayEquals(new long[] {2, 5000}, wide.shape());
                float[] out = new float[values.length];
                back.readFloats(0, out, 0, out.length);
                for (int i = 0; i < values.length; i++) {
                    assertEquals(Fp16.round(values[i]), out[i], 0f, "fp16 rounding then exact widening, " + i);
                }
            }
        }
    }
}
