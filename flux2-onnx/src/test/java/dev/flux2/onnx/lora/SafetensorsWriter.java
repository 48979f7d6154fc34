package dev.flux2.onnx.lora;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/** Writes small F32 safetensors files for the tests' own cases (the layouts' fixtures come from the Python writer). */
final class SafetensorsWriter {
    private SafetensorsWriter() {}

    static void write(Path file, Map<String, String> metadata, Map<String, float[][]> matrices) throws IOException {
        StringBuilder header = new StringBuilder("{");
        if (!metadata.isEmpty()) {
            header.append("\"__metadata__\":{");
            String sep = "";
            for (Map.Entry<String, String> e : new TreeMap<>(metadata).entrySet()) {
                header.append(sep).append(quote(e.getKey())).append(':').append(quote(e.getValue()));
                sep = ",";
            }
            header.append("},");
        }
        long offset = 0;
        String sep = "";
        Map<String, float[][]> sorted = new TreeMap<>(matrices);
        for (Map.Entry<String, float[][]> e : sorted.entrySet()) {
            float[][] m = e.getValue();
            long bytes = 4L * m.length * m[0].length;
            header.append(sep)
                    .append(quote(e.getKey()))
                    .append(":{\"dtype\":\"F32\",\"shape\":[")
                    .append(m.length)
                    .append(',')
                    .append(m[0].length)
                    .append("],\"data_offsets\":[")
                    .append(offset)
                    .append(',')
                    .append(offset + bytes)
                    .append("]}");
            offset += bytes;
            sep = ",";
        }
        header.append('}');
        byte[] h = header.toString().getBytes(StandardCharsets.UTF_8);
        ByteBuffer buf = ByteBuffer.allocate(8 + h.length + (int) offset).order(ByteOrder.LITTLE_ENDIAN);
        buf.putLong(h.length).put(h);
        for (float[][] m : sorted.values()) {
            for (float[] row : m) {
                for (float v : row) {
                    buf.putFloat(v);
                }
            }
        }
        Files.write(file, buf.array());
    }

    static void writeRaw(Path file, String header, int dataBytes) throws IOException {
        byte[] h = header.getBytes(StandardCharsets.UTF_8);
        ByteBuffer buf = ByteBuffer.allocate(8 + h.length + dataBytes).order(ByteOrder.LITTLE_ENDIAN);
        buf.putLong(h.length).put(h);
        Files.write(file, buf.array());
    }

    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
