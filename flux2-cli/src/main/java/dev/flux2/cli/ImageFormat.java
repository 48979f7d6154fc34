package dev.flux2.cli;

import dev.flux2.api.InvalidRequestException;
import java.nio.file.Path;
import java.util.Locale;

/** The output formats, chosen by the file's extension. */
enum ImageFormat {
    /** PNG with the generation parameters as text chunks ({@link dev.flux2.io.PngFiles}). */
    PNG,
    /** Baseline JPEG (no alpha) with the parameters as a JSON comment ({@link JpegMetadataWriter}). */
    JPEG;

    /**
     * @param file an output file
     * @return its format
     * @throws InvalidRequestException naming the file when its extension is not {@code .png}, {@code .jpg} or
     *     {@code .jpeg} (WebP is refused: no maintained ImageIO plugin writes it; TwelveMonkeys' reads only)
     */
    public static ImageFormat of(Path file) {
        Path name = file.getFileName();
        String n = name == null ? "" : name.toString().toLowerCase(Locale.ROOT);
        int dot = n.lastIndexOf('.');
        String ext = dot < 0 ? "" : n.substring(dot + 1);
        return switch (ext) {
            case "png" -> PNG;
            case "jpg", "jpeg" -> JPEG;
            case "webp" ->
                throw new InvalidRequestException("output " + file + ": WebP cannot be written (no"
                        + " maintained Java ImageIO plugin writes WebP; TwelveMonkeys' WebP plugin only reads it);"
                        + " use .png or .jpg");
            case "" ->
                throw new InvalidRequestException("output " + file
                        + " has no extension: name it .png or .jpg (the extension selects the format)");
            default ->
                throw new InvalidRequestException("output " + file + ": unsupported extension ." + ext
                        + " (the extension selects the format: .png, .jpg or .jpeg)");
        };
    }
}
