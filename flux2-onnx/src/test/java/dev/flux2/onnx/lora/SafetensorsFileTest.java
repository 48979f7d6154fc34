package dev.flux2.onnx.lora;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.InvalidRequestException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The safetensors reader's bounds: every malformed header is refused naming the file and what is wrong. */
class SafetensorsFileTest {
    @TempDir
    Path dir;

    @Test
    void readsWhatItWasGiven() throws IOException {
        Path f = dir.resolve("ok.safetensors");
        SafetensorsWriter.write(f, Map.of("k", "v"), Map.of("a", new float[][] {{1.5f, -2f}, {3f, 4f}}));
        SafetensorsFile st = SafetensorsFile.open(f, 1 << 20);
        assertEquals(Map.of("k", "v"), st.metadata());
        assertArrayEquals(
                new float[] {1.5f, -2f, 3f, 4f}, st.floats(st.entries().get("a")));
    }

    @Test
    void bf16AndF16AreWidenedExactly() throws IOException {
        Path f = dir.resolve("half.safetensors");
        String header = "{\"b\":{\"dtype\":\"BF16\",\"shape\":[2],\"data_offsets\":[0,4]},"
                + "\"h\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[4,8]}}";
        byte[] h = header.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        ByteBuffer buf = ByteBuffer.allocate(8 + h.length + 8).order(ByteOrder.LITTLE_ENDIAN);
        buf.putLong(h.length).put(h);
        buf.putShort((short) 0x3FC0).putShort((short) 0xC000); // bf16 1.5, -2
        buf.putShort((short) 0x3C00).putShort((short) 0x3555); // fp16 1.0, 0.333251953125
        Files.write(f, buf.array());
        SafetensorsFile st = SafetensorsFile.open(f, 1 << 20);
        assertArrayEquals(new float[] {1.5f, -2f}, st.floats(st.entries().get("b")));
        assertArrayEquals(
                new float[] {1f, 0.333251953125f}, st.floats(st.entries().get("h")));
    }

    @Test
    void truncatedDataIsRefused() throws IOException {
        Path f = dir.resolve("t.safetensors");
        SafetensorsWriter.writeRaw(f, "{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}", 8);
        assertRefused(f, "beyond its 8 bytes");
    }

    @Test
    void hugeHeaderLengthIsRefusedBeforeAllocation() throws IOException {
        Path f = dir.resolve("h.safetensors");
        ByteBuffer buf = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putLong(Long.MAX_VALUE / 2);
        Files.write(f, buf.array());
        assertRefused(f, "declares a header of");
    }

    @Test
    void overlappingTensorsAreRefused() throws IOException {
        Path f = dir.resolve("o.safetensors");
        SafetensorsWriter.writeRaw(
                f,
                "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                        + "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}",
                12);
        assertRefused(f, "overlaps");
    }

    @Test
    void lengthThatDisagreesWithShapeIsRefused() throws IOException {
        Path f = dir.resolve("l.safetensors");
        SafetensorsWriter.writeRaw(f, "{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}", 8);
        assertRefused(f, "needs 12");
    }

    @Test
    void otherDtypesAreRefused() throws IOException {
        Path f = dir.resolve("d.safetensors");
        SafetensorsWriter.writeRaw(f, "{\"a\":{\"dtype\":\"I64\",\"shape\":[1],\"data_offsets\":[0,8]}}", 8);
        assertRefused(f, "dtype I64");
    }

    @Test
    void duplicateKeysAndNonJsonAreRefused() throws IOException {
        Path f = dir.resolve("dup.safetensors");
        SafetensorsWriter.writeRaw(
                f,
                "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                        + "\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}",
                4);
        assertRefused(f, "not valid JSON");
        Path g = dir.resolve("txt.safetensors");
        SafetensorsWriter.writeRaw(g, "[1,2]", 0);
        assertRefused(g, "not a JSON object");
    }

    @Test
    void shapeOverflowIsRefused() throws IOException {
        Path f = dir.resolve("s.safetensors");
        SafetensorsWriter.writeRaw(
                f, "{\"a\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296]," + "\"data_offsets\":[0,4]}}", 4);
        assertRefused(f, "elements");
    }

    @Test
    void aFolderAndAMissingFileAreRefused() {
        assertRefused(dir, "is not a regular file");
        assertRefused(dir.resolve("absent.safetensors"), "does not exist");
    }

    private static void assertRefused(Path f, String part) {
        InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> SafetensorsFile.open(f, 1 << 20));
        assertTrue(e.getMessage().contains(f.toString()) && e.getMessage().contains(part), e.getMessage());
    }
}
