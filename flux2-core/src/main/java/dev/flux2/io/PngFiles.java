package dev.flux2.io;

import dev.flux2.api.GeneratedImage;
import dev.flux2.api.GenerationMetadata;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.zip.CRC32;
import java.util.zip.InflaterInputStream;
import javax.imageio.IIOImage;
import javax.imageio.ImageIO;
import javax.imageio.ImageTypeSpecifier;
import javax.imageio.ImageWriteParam;
import javax.imageio.ImageWriter;
import javax.imageio.metadata.IIOInvalidTreeException;
import javax.imageio.metadata.IIOMetadata;
import javax.imageio.metadata.IIOMetadataNode;
import javax.imageio.stream.ImageOutputStream;
import javax.imageio.stream.MemoryCacheImageOutputStream;

/**
 * PNG files that carry their generation parameters, so the file alone says how to reproduce it: what the
 * {@code flux2} command, the HTTP service and the Spark batch job write.
 *
 * <p>Text chunks, in order: {@code prompt}, {@code seed}, {@code steps}, {@code width}, {@code height},
 * {@code guidance}, {@code strength} (img2img only), {@code model_variant}, {@code software} ({@code flux2-java})
 * and {@code parameters} (all of them plus {@code steps_run}, {@code reference_images}, {@code fused} and
 * {@code truncated_tokens}, as one compact JSON object). Values are {@code tEXt} chunks; a value that is not
 * Latin-1 (a prompt in most non-Latin scripts) goes into an uncompressed {@code iTXt} chunk (UTF-8) under the same
 * key. The encoding is deterministic: the same image and metadata give the same bytes.
 *
 * <p>Stateless and thread-safe.
 */
public final class PngFiles {
    private static final String FORMAT = "javax_imageio_png_1.0";
    private static final byte[] SIGNATURE = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    /** Larger chunks are not text this SDK wrote; reading them whole would only cost memory. */
    private static final int MAX_TEXT_CHUNK = 16 << 20;

    private PngFiles() {}

    /**
     * Writes a PNG file atomically: to a hidden temporary file beside it, then renamed into place, so a failed
     * write leaves no partial PNG.
     *
     * @param image the image and its metadata
     * @param file the PNG to write (replaced if it exists)
     * @throws IOException when the file cannot be written
     */
    public static void write(GeneratedImage image, Path file) throws IOException {
        Path absolute = file.toAbsolutePath();
        // Not Files.createTempFile: its owner-only permissions would survive the rename; this one follows the umask.
        Path tmp = absolute.resolveSibling("." + absolute.getFileName() + "." + System.nanoTime() + ".tmp");
        try {
            try (OutputStream out =
                    Files.newOutputStream(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                write(image, out);
            }
            Files.move(tmp, absolute, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /**
     * Writes PNG bytes to a stream (left open).
     *
     * @param image the image and its metadata
     * @param out the destination
     * @throws IOException when the stream fails
     */
    public static void write(GeneratedImage image, OutputStream out) throws IOException {
        BufferedImage pixels = image.image();
        ImageWriter writer = ImageIO.getImageWritersByFormatName("png").next();
        try {
            ImageWriteParam param = writer.getDefaultWriteParam();
            IIOMetadata metadata =
                    writer.getDefaultImageMetadata(ImageTypeSpecifier.createFromRenderedImage(pixels), param);
            addText(metadata, textEntries(image.metadata()));
            // In-memory cache: no temporary files (ImageIO's default), and close() leaves the caller's stream open.
            try (ImageOutputStream stream = new MemoryCacheImageOutputStream(out)) {
                writer.setOutput(stream);
                writer.write(null, new IIOImage(pixels, null, metadata), param);
            }
        } finally {
            writer.dispose();
        }
    }

    /**
     * @param image the image and its metadata
     * @return the PNG bytes
     */
    public static byte[] encode(GeneratedImage image) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            write(image, bytes);
        } catch (IOException e) {
            throw new IllegalStateException("PNG encoding into memory failed: " + e.getMessage(), e);
        }
        return bytes.toByteArray();
    }

    /**
     * @param m the generation metadata
     * @return the text entries written to the PNG, in order
     */
    public static Map<String, String> textEntries(GenerationMetadata m) {
        Map<String, String> text = new LinkedHashMap<>();
        text.put("prompt", m.prompt());
        m.seed().ifPresent(s -> text.put("seed", Long.toString(s)));
        text.put("steps", Integer.toString(m.steps()));
        text.put("width", Integer.toString(m.width()));
        text.put("height", Integer.toString(m.height()));
        text.put("guidance", String.format(Locale.ROOT, "%s", m.guidance()));
        m.strength().ifPresent(s -> text.put("strength", String.format(Locale.ROOT, "%s", s)));
        text.put("model_variant", m.modelVariant());
        text.put("software", "flux2-java");
        StringBuilder json = new StringBuilder(256).append('{');
        jsonString(json, "prompt").append(':');
        jsonString(json, m.prompt());
        m.seed().ifPresent(s -> json.append(",\"seed\":").append(s));
        json.append(",\"steps\":").append(m.steps());
        json.append(",\"steps_run\":").append(m.stepsRun());
        json.append(",\"width\":").append(m.width());
        json.append(",\"height\":").append(m.height());
        json.append(",\"guidance\":").append(jsonNumber(Double.toString(m.guidance())));
        m.strength().ifPresent(s -> json.append(",\"strength\":").append(jsonNumber(Double.toString(s))));
        json.append(",\"reference_images\":").append(m.referenceCount());
        json.append(",\"fused\":").append(m.fused());
        json.append(",\"truncated_tokens\":").append(m.truncatedTokens());
        json.append(",\"model_variant\":");
        jsonString(json, m.modelVariant());
        text.put("parameters", json.append('}').toString());
        return text;
    }

    /**
     * Reads the text entries of a PNG and checks, on the way, that it is complete: the PNG signature, every chunk's
     * length and CRC, {@code IHDR} first and an {@code IEND} chunk. Pixel data is not decoded. {@code tEXt},
     * {@code zTXt} and {@code iTXt} chunks are read (compressed ones inflated); the first chunk of a keyword wins.
     *
     * @param in the PNG bytes from their start (read up to and including {@code IEND}; not closed)
     * @return keyword → text, in file order
     * @throws IOException when the stream fails or does not hold a complete PNG (the message says what is wrong)
     */
    public static Map<String, String> readTextEntries(InputStream in) throws IOException {
        DataInputStream data = new DataInputStream(in);
        byte[] signature = new byte[SIGNATURE.length];
        readFully(data, signature, "the PNG signature");
        if (!Arrays.equals(signature, SIGNATURE)) {
            throw new IOException("not a PNG file: the first 8 bytes are not the PNG signature");
        }
        Map<String, String> text = new LinkedHashMap<>();
        CRC32 crc = new CRC32();
        boolean first = true;
        while (true) {
            int length = readInt(data, "a chunk length");
            byte[] type = new byte[4];
            readFully(data, type, "a chunk type");
            String name = new String(type, StandardCharsets.ISO_8859_1);
            if (length < 0) {
                throw new IOException("invalid PNG: chunk " + name + " has a negative length");
            }
            if (first && !name.equals("IHDR")) {
                throw new IOException("invalid PNG: the first chunk is " + name + ", expected IHDR");
            }
            first = false;
            boolean isText = name.equals("tEXt") || name.equals("zTXt") || name.equals("iTXt");
            crc.reset();
            crc.update(type);
            byte[] body = null;
            if (isText && length <= MAX_TEXT_CHUNK) {
                body = new byte[length];
                readFully(data, body, "chunk " + name);
                crc.update(body);
            } else {
                skipWithCrc(data, length, crc, name);
            }
            long expected = Integer.toUnsignedLong(readInt(data, "the CRC of chunk " + name));
            if (crc.getValue() != expected) {
                throw new IOException("invalid PNG: CRC mismatch in chunk " + name);
            }
            if (body != null) {
                addTextChunk(text, name, body);
            }
            if (name.equals("IEND")) {
                return text;
            }
        }
    }

    private static void addTextChunk(Map<String, String> text, String type, byte[] body) throws IOException {
        int nul = indexOf(body, 0);
        if (nul < 1) {
            throw new IOException("invalid PNG: " + type + " chunk without a keyword");
        }
        String key = new String(body, 0, nul, StandardCharsets.ISO_8859_1);
        String value;
        switch (type) {
            case "tEXt" -> value = new String(body, nul + 1, body.length - nul - 1, StandardCharsets.ISO_8859_1);
            case "zTXt" -> value = new String(inflate(body, nul + 2), StandardCharsets.ISO_8859_1);
            default -> {
                // iTXt: keyword NUL, compression flag, method, language tag NUL, translated keyword NUL, text.
                if (body.length < nul + 3) {
                    throw new IOException("invalid PNG: truncated iTXt chunk " + key);
                }
                boolean compressed = body[nul + 1] != 0;
                int language = indexOf(body, nul + 3);
                int translated = language < 0 ? -1 : indexOf(body, language + 1);
                if (translated < 0) {
                    throw new IOException("invalid PNG: truncated iTXt chunk " + key);
                }
                byte[] utf8 = compressed
                        ? inflate(body, translated + 1)
                        : Arrays.copyOfRange(body, translated + 1, body.length);
                value = new String(utf8, StandardCharsets.UTF_8);
            }
        }
        text.putIfAbsent(key, value);
    }

    private static byte[] inflate(byte[] body, int offset) throws IOException {
        if (offset > body.length) {
            throw new IOException("invalid PNG: truncated compressed text chunk");
        }
        try (InflaterInputStream in =
                new InflaterInputStream(new ByteArrayInputStream(body, offset, body.length - offset))) {
            return in.readAllBytes();
        }
    }

    private static int indexOf(byte[] bytes, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == 0) {
                return i;
            }
        }
        return -1;
    }

    private static void skipWithCrc(DataInputStream in, int length, CRC32 crc, String name) throws IOException {
        byte[] buffer = new byte[8192];
        int left = length;
        while (left > 0) {
            int n = in.read(buffer, 0, Math.min(buffer.length, left));
            if (n < 0) {
                throw new EOFException("truncated PNG: chunk " + name + " ends early");
            }
            crc.update(buffer, 0, n);
            left -= n;
        }
    }

    private static int readInt(DataInputStream in, String what) throws IOException {
        try {
            return in.readInt();
        } catch (EOFException e) {
            throw new EOFException("truncated PNG: the file ends before " + what + " (no IEND chunk)");
        }
    }

    private static void readFully(DataInputStream in, byte[] bytes, String what) throws IOException {
        try {
            in.readFully(bytes);
        } catch (EOFException e) {
            throw new EOFException("truncated PNG: the file ends inside " + what);
        }
    }

    /** JSON string as Jackson writes it: {@code "} and {@code \} escaped, control characters as escapes. */
    private static StringBuilder jsonString(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\b' -> out.append("\\b");
                case '\t' -> out.append("\\t");
                case '\n' -> out.append("\\n");
                case '\f' -> out.append("\\f");
                case '\r' -> out.append("\\r");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format(Locale.ROOT, "\\u%04X", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"');
    }

    /** Non-finite values are not JSON numbers; written as strings (requests reject them before this point). */
    private static String jsonNumber(String javaNumber) {
        return javaNumber.equals("NaN") || javaNumber.endsWith("Infinity") ? '"' + javaNumber + '"' : javaNumber;
    }

    private static void addText(IIOMetadata metadata, Map<String, String> entries) throws IIOInvalidTreeException {
        IIOMetadataNode root = new IIOMetadataNode(FORMAT);
        IIOMetadataNode tEXt = new IIOMetadataNode("tEXt");
        IIOMetadataNode iTXt = new IIOMetadataNode("iTXt");
        for (Map.Entry<String, String> e : entries.entrySet()) {
            if (isLatin1(e.getValue())) {
                IIOMetadataNode entry = new IIOMetadataNode("tEXtEntry");
                entry.setAttribute("keyword", e.getKey());
                entry.setAttribute("value", e.getValue());
                tEXt.appendChild(entry);
            } else {
                IIOMetadataNode entry = new IIOMetadataNode("iTXtEntry");
                entry.setAttribute("keyword", e.getKey());
                entry.setAttribute("compressionFlag", "FALSE");
                entry.setAttribute("compressionMethod", "0");
                entry.setAttribute("languageTag", "");
                entry.setAttribute("translatedKeyword", "");
                entry.setAttribute("text", e.getValue());
                iTXt.appendChild(entry);
            }
        }
        if (tEXt.getLength() > 0) {
            root.appendChild(tEXt);
        }
        if (iTXt.getLength() > 0) {
            root.appendChild(iTXt);
        }
        metadata.mergeTree(FORMAT, root);
    }

    private static boolean isLatin1(String s) {
        // tEXt allows Latin-1 printable text plus newline; NUL and other control characters are not allowed.
        return StandardCharsets.ISO_8859_1.newEncoder().canEncode(s)
                && s.chars().noneMatch(c -> c < 0x20 && c != '\n');
    }
}
