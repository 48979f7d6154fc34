package dev.flux2.onnx.lora;

import ai.onnxruntime.platform.Fp16Conversions;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.flux2.api.InvalidRequestException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A safetensors file read within bounds: the 8-byte little-endian header length, the JSON header (tensor name →
 * dtype, shape, data offsets; optional {@code __metadata__} of string values) and each tensor's bytes, checked
 * against the format's rules before any data is read — the header no larger than {@link #MAX_HEADER_BYTES}, every
 * tensor's extent inside the file, extents that tile the data section without holes or overlaps, byte lengths that
 * equal the shape times the element size, and only the element types LoRA files use (F32, F16, BF16).
 *
 * <p>No library on Maven Central reads the format without a tensor engine (DJL's reader needs an engine's
 * NDManager), and the format is small, so this one is written here and tested against files written by the
 * reference implementation (the {@code safetensors} Python package). Immutable once read; tensor data is read
 * from the file on demand.
 */
final class SafetensorsFile {
    /** The reference implementation's own limit on the header (safetensors' {@code MAX_HEADER_SIZE}). */
    static final long MAX_HEADER_BYTES = 100_000_000L;
    /** The most elements one tensor may hold here: its floats must fit one Java array. */
    static final long MAX_TENSOR_ELEMENTS = Integer.MAX_VALUE - 8;

    /** One tensor's entry in the header. Offsets are relative to the start of the data section. */
    record Entry(String name, Dtype dtype, long[] shape, long begin, long end) {
        /** @return the number of elements, the product of the shape (1 for a scalar) */
        long elements() {
            long n = 1;
            for (long d : shape) {
                n *= d;
            }
            return n;
        }

        /** @return the shape as {@code [a, b]} for messages */
        String shapeText() {
            return java.util.Arrays.toString(shape);
        }
    }

    /** The element types a LoRA file may hold. */
    enum Dtype {
        F32(4),
        F16(2),
        BF16(2);

        final int bytes;

        Dtype(int bytes) {
            this.bytes = bytes;
        }
    }

    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .build();

    static {
        JSON.getFactory()
                .setStreamReadConstraints(StreamReadConstraints.builder()
                        .maxNestingDepth(8)
                        .maxStringLength((int) MAX_HEADER_BYTES)
                        .build());
    }

    private final Path file;
    private final long dataStart;
    private final Map<String, Entry> entries;
    private final Map<String, String> metadata;

    private SafetensorsFile(Path file, long dataStart, Map<String, Entry> entries, Map<String, String> metadata) {
        this.file = file;
        this.dataStart = dataStart;
        this.entries = entries;
        this.metadata = metadata;
    }

    /**
     * Reads and checks a file's header; no tensor data is read yet.
     *
     * @param file a regular file
     * @param maxFileBytes the largest file accepted
     * @return the file's header
     * @throws InvalidRequestException naming the file and what is wrong with it
     */
    static SafetensorsFile open(Path file, long maxFileBytes) {
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(file)) {
            throw bad(file, Files.exists(file) ? "is not a regular file" : "does not exist");
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size > maxFileBytes) {
                throw bad(file, "is " + size + " bytes, more than the limit of " + maxFileBytes);
            }
            if (size < 8) {
                throw bad(file, "is " + size + " bytes: too short for a safetensors header (8 bytes of length first)");
            }
            ByteBuffer len = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            readFully(ch, len, 0);
            long headerBytes = len.flip().getLong();
            if (headerBytes <= 0 || headerBytes > MAX_HEADER_BYTES) {
                throw bad(
                        file,
                        "declares a header of " + Long.toUnsignedString(headerBytes) + " bytes; expected 1 to "
                                + MAX_HEADER_BYTES + " (not a safetensors file?)");
            }
            if (headerBytes > size - 8) {
                throw bad(
                        file,
                        "declares a header of " + headerBytes + " bytes but holds only " + (size - 8)
                                + " after its length (truncated?)");
            }
            ByteBuffer header = ByteBuffer.allocate((int) headerBytes);
            readFully(ch, header, 8);
            String text = new String(header.array(), StandardCharsets.UTF_8);
            if (!text.startsWith("{")) {
                throw bad(
                        file,
                        "has a header that is not a JSON object (starts with '"
                                + (text.isEmpty() ? "" : text.substring(0, 1)) + "')");
            }
            JsonNode root;
            try {
                root = JSON.readTree(text);
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw bad(file, "has a header that is not valid JSON: " + e.getOriginalMessage());
            }
            return parse(file, root, 8 + headerBytes, size);
        } catch (IOException e) {
            throw new InvalidRequestException("LoRA file " + file + " cannot be read: " + reason(e), e);
        }
    }

    private static SafetensorsFile parse(Path file, JsonNode root, long dataStart, long fileSize) {
        if (root == null || !root.isObject()) {
            throw bad(file, "has a header that is not a JSON object");
        }
        Map<String, String> metadata = new LinkedHashMap<>();
        List<Entry> list = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            String name = field.getKey();
            JsonNode value = field.getValue();
            if (name.equals("__metadata__")) {
                if (!value.isObject()) {
                    throw bad(file, "has a __metadata__ that is not an object of strings");
                }
                for (Iterator<Map.Entry<String, JsonNode>> m = value.fields(); m.hasNext(); ) {
                    Map.Entry<String, JsonNode> kv = m.next();
                    if (!kv.getValue().isTextual()) {
                        throw bad(file, "has __metadata__ entry '" + kv.getKey() + "' that is not a string");
                    }
                    metadata.put(kv.getKey(), kv.getValue().asText());
                }
                continue;
            }
            list.add(entry(file, name, value));
        }
        long dataBytes = fileSize - dataStart;
        list.sort(Comparator.comparingLong(Entry::begin).thenComparingLong(Entry::end));
        long expected = 0;
        for (Entry e : list) {
            if (e.begin() != expected) {
                throw bad(
                        file,
                        "tensor '" + e.name() + "' starts at byte " + e.begin() + " of the data section; " + "expected "
                                + expected + (e.begin() < expected ? " (overlaps another tensor)" : " (a hole)"));
            }
            if (e.end() > dataBytes) {
                throw bad(
                        file,
                        "tensor '" + e.name() + "' ends at byte " + e.end() + " of the data section, beyond" + " its "
                                + dataBytes + " bytes (truncated?)");
            }
            expected = e.end();
        }
        Map<String, Entry> byName = new LinkedHashMap<>();
        list.stream().sorted(Comparator.comparing(Entry::name)).forEach(e -> byName.put(e.name(), e));
        return new SafetensorsFile(file, dataStart, Map.copyOf(byName), Map.copyOf(metadata));
    }

    private static Entry entry(Path file, String name, JsonNode value) {
        String where = "tensor '" + name + "'";
        if (!value.isObject()) {
            throw bad(file, where + " is not described by an object");
        }
        JsonNode dtypeNode = value.get("dtype");
        JsonNode shapeNode = value.get("shape");
        JsonNode offsets = value.get("data_offsets");
        if (dtypeNode == null
                || !dtypeNode.isTextual()
                || shapeNode == null
                || !shapeNode.isArray()
                || offsets == null
                || !offsets.isArray()
                || offsets.size() != 2) {
            throw bad(file, where + " lacks dtype, shape or data_offsets [begin, end]");
        }
        Dtype dtype;
        try {
            dtype = Dtype.valueOf(dtypeNode.asText());
        } catch (IllegalArgumentException e) {
            throw bad(file, where + " has dtype " + dtypeNode.asText() + "; a LoRA file holds F32, F16 or BF16");
        }
        if (shapeNode.size() > 8) {
            throw bad(file, where + " has " + shapeNode.size() + " dimensions; at most 8 are read");
        }
        long[] shape = new long[shapeNode.size()];
        long elements = 1;
        for (int i = 0; i < shape.length; i++) {
            JsonNode d = shapeNode.get(i);
            if (!d.canConvertToLong() || !d.isIntegralNumber() || d.asLong() < 0) {
                throw bad(file, where + " has shape " + shapeNode + ": dimensions must be integers >= 0");
            }
            shape[i] = d.asLong();
            if (shape[i] != 0 && elements > MAX_TENSOR_ELEMENTS / shape[i]) {
                throw bad(file, where + " has shape " + shapeNode + ", more than " + MAX_TENSOR_ELEMENTS + " elements");
            }
            elements *= shape[i];
        }
        JsonNode b = offsets.get(0);
        JsonNode e = offsets.get(1);
        if (!b.isIntegralNumber()
                || !e.isIntegralNumber()
                || !b.canConvertToLong()
                || !e.canConvertToLong()
                || b.asLong() < 0
                || e.asLong() < b.asLong()) {
            throw bad(file, where + " has data_offsets " + offsets + "; expected [begin, end] with 0 <= begin <= end");
        }
        long length = e.asLong() - b.asLong();
        if (length != elements * dtype.bytes) {
            throw bad(
                    file,
                    where + " holds " + length + " bytes; its shape " + shapeNode + " of " + dtype + " needs "
                            + elements * dtype.bytes);
        }
        return new Entry(name, dtype, shape, b.asLong(), e.asLong());
    }

    /** @return the file read */
    Path file() {
        return file;
    }

    /** @return the header's entries by tensor name, in name order */
    Map<String, Entry> entries() {
        return entries;
    }

    /** @return the header's {@code __metadata__}, empty when absent */
    Map<String, String> metadata() {
        return metadata;
    }

    /**
     * Reads one tensor's elements as floats (F16 and BF16 widened exactly).
     *
     * @param entry an entry of this file
     * @return its elements in row-major order
     */
    float[] floats(Entry entry) {
        int n = (int) entry.elements();
        ByteBuffer bytes =
                ByteBuffer.allocate((int) (entry.end() - entry.begin())).order(ByteOrder.LITTLE_ENDIAN);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            if (ch.size() < dataStart + entry.end()) {
                throw bad(file, "changed while being read: tensor '" + entry.name() + "' is no longer inside it");
            }
            readFully(ch, bytes, dataStart + entry.begin());
        } catch (IOException e) {
            throw new InvalidRequestException("LoRA file " + file + " cannot be read: " + reason(e), e);
        }
        bytes.flip();
        float[] out = new float[n];
        switch (entry.dtype()) {
            case F32 -> bytes.asFloatBuffer().get(out);
            case F16 -> {
                for (int i = 0; i < n; i++) {
                    out[i] = Fp16Conversions.fp16ToFloat(bytes.getShort());
                }
            }
            case BF16 -> {
                for (int i = 0; i < n; i++) {
                    out[i] = Float.intBitsToFloat((bytes.getShort() & 0xFFFF) << 16);
                }
            }
        }
        return out;
    }

    private static void readFully(FileChannel ch, ByteBuffer into, long position) throws IOException {
        long pos = position;
        while (into.hasRemaining()) {
            int n = ch.read(into, pos);
            if (n < 0) {
                throw new IOException("unexpected end of file at byte " + pos);
            }
            pos += n;
        }
    }

    private static String reason(IOException e) {
        String m = e.getMessage();
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "permission denied";
        }
        return m == null ? e.getClass().getSimpleName() : m;
    }

    private static InvalidRequestException bad(Path file, String what) {
        return new InvalidRequestException("LoRA file " + file + " " + what);
    }
}
