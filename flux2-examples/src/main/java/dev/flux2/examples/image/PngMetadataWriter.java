package dev.flux2.examples.image;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flux2.api.GeneratedImage;
import dev.flux2.api.GenerationMetadata;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
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
 * Writes a generated image as PNG with its generation parameters as text chunks, so the file alone says how to
 * reproduce it. Keys: {@code prompt}, {@code seed}, {@code steps}, {@code width}, {@code height},
 * {@code guidance}, {@code strength} (img2img only), {@code model_variant}, {@code software} and
 * {@code parameters} (all of them as one JSON object). Values are {@code tEXt} chunks; a value that is not
 * Latin-1 (a prompt in most non-Latin scripts) goes into an {@code iTXt} chunk (UTF-8) under the same key.
 * Files are written next to the target and renamed into place, so a failed write leaves no partial PNG.
 * Stateless and thread-safe.
 */
public final class PngMetadataWriter {
    private static final String FORMAT = "javax_imageio_png_1.0";
    private static final ObjectMapper JSON = new ObjectMapper();

    private PngMetadataWriter() {}

    /**
     * Writes a PNG file atomically.
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
        ObjectNode all = JSON.createObjectNode();
        all.put("prompt", m.prompt());
        m.seed().ifPresent(s -> all.put("seed", s));
        all.put("steps", m.steps());
        all.put("steps_run", m.stepsRun());
        all.put("width", m.width());
        all.put("height", m.height());
        all.put("guidance", m.guidance());
        m.strength().ifPresent(s -> all.put("strength", s));
        all.put("reference_images", m.referenceCount());
        all.put("fused", m.fused());
        all.put("truncated_tokens", m.truncatedTokens());
        all.put("model_variant", m.modelVariant());
        text.put("parameters", all.toString());
        return text;
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
