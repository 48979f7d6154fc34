package dev.flux2.onnx.tensor;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnxruntime.OrtEnvironment;
import dev.flux2.onnx.bundle.ElementType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

class DirectBufferPoolTest {
    private static final OrtEnvironment ENV = OrtEnvironment.getEnvironment();

    @Test
    void releasedBufferIsHandedOutAgainForTheSameSizeAndZeroFilled() {
        DirectBufferPool pool = new DirectBufferPool(1 << 20);
        ByteBuffer first = pool.acquire(100_000);
        assertTrue(first.isDirect());
        assertEquals(ByteOrder.nativeOrder(), first.order());
        for (int i = 0; i < first.capacity(); i++) {
            first.put(i, (byte) (i % 251 + 1));
        }
        pool.release(first);
        assertEquals(100_000, pool.pooledBytes());

        ByteBuffer other = pool.acquire(50_000);
        assertNotSame(first, other, "another size must not take the released buffer");
        ByteBuffer again = pool.acquire(100_000);
        assertSame(first, again);
        assertEquals(0, again.position());
        assertEquals(100_000, again.limit());
        for (int i = 0; i < again.capacity(); i++) {
            assertEquals(0, again.get(i), "byte " + i + " of a reused buffer");
        }
        assertEquals(0, pool.pooledBytes());
        assertEquals(1, pool.reusedCount());
        assertEquals(2, pool.allocatedCount());
    }

    @Test
    void keepsAtMostItsLimitDroppingTheOldestFirst() {
        DirectBufferPool pool = new DirectBufferPool(250);
        ByteBuffer a = pool.acquire(100);
        ByteBuffer b = pool.acquire(100);
        ByteBuffer c = pool.acquire(100);
        pool.release(a);
        pool.release(b);
        pool.release(c); // 300 > 250: a goes
        assertEquals(200, pool.pooledBytes());
        ByteBuffer x = pool.acquire(100);
        ByteBuffer y = pool.acquire(100);
        ByteBuffer z = pool.acquire(100);
        assertSame(b, x);
        assertSame(c, y);
        assertNotSame(a, z, "the oldest buffer was dropped, so a new one is allocated");
        pool.release(pool.acquire(1000)); // larger than the limit: never kept
        assertEquals(0, pool.pooledBytes());
    }

    @Test
    void unpooledKeepsNothing() {
        DirectBufferPool pool = DirectBufferPool.unpooled();
        ByteBuffer a = pool.acquire(64);
        pool.release(a);
        assertEquals(0, pool.pooledBytes());
        assertNotSame(a, pool.acquire(64));
        assertThrows(IllegalArgumentException.class, () -> new DirectBufferPool(-1));
        assertThrows(IllegalArgumentException.class, () -> pool.release(ByteBuffer.allocate(8)));
    }

    @Test
    void closingATensorBufferReturnsItsMemoryAndTheNextTensorStartsFromZeros() {
        DirectBufferPool pool = new DirectBufferPool(1 << 20);
        float[] values = {1.5f, -2f, 3.25f, 65504f, -0.5f, 7f};
        TensorBuffer first = TensorBuffer.allocate(pool, ENV, ElementType.FLOAT16, 2, 3);
        first.writeFloats(values, 0, values.length, 0);
        first.close();
        first.close(); // idempotent: must not hand the buffer back twice
        assertEquals(12, pool.pooledBytes());
        assertThrows(IllegalStateException.class, first::tensor);

        try (TensorBuffer second = TensorBuffer.allocate(pool, ENV, ElementType.FLOAT16, 3, 2);
                TensorBuffer third = TensorBuffer.allocate(pool, ENV, ElementType.FLOAT16, 3, 2)) {
            assertEquals(1, pool.reusedCount(), "only one buffer was released");
            float[] read = new float[6];
            second.readFloats(0, read, 0, 6);
            assertArrayEquals(new float[6], read, "a reused tensor starts zero-filled");
            assertFalse(second.tensor().ownsBuffer());
            second.writeFloats(values, 0, 6, 0);
            float[] viaOrt = new float[6];
            second.tensor().getFloatBuffer().get(viaOrt);
            assertArrayEquals(values, viaOrt, "ONNX Runtime reads the reused buffer");
            third.readFloats(0, read, 0, 6);
            assertArrayEquals(new float[6], read, "a concurrently held tensor has its own memory");
        }
        assertEquals(24, pool.pooledBytes());
    }

    @Test
    void convertedCopiesComeFromThePool() {
        DirectBufferPool pool = new DirectBufferPool(1 << 20);
        try (TensorBuffer src = TensorBuffer.allocate(ENV, ElementType.FLOAT, 4)) {
            src.writeFloats(new float[] {1f, 2f, 3f, 1e6f}, 0, 4, 0);
            try (TensorBuffer half = TensorBuffer.convertedCopy(pool, ENV, src, ElementType.FLOAT16)) {
                float[] read = new float[4];
                half.readFloats(0, read, 0, 4);
                assertArrayEquals(new float[] {1f, 2f, 3f, Fp16.MAX}, read);
            }
            assertEquals(8, pool.pooledBytes());
            try (TensorBuffer again = TensorBuffer.convertedCopy(pool, ENV, src.tensor(), ElementType.BFLOAT16)) {
                float[] read = new float[4];
                again.readFloats(0, read, 0, 4);
                assertEquals(1f, read[0], 0f);
                assertEquals(1, pool.reusedCount());
            }
        }
    }
}
