package dev.flux2.springai;

import dev.flux2.api.InvalidImageException;
import dev.flux2.io.EncodedImages;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.springframework.ai.content.Media;

/**
 * Turns a Spring AI {@link Media} into an image file that {@code GenerationRequest} reads with its own checks (the
 * size from the header against the limits, CMYK JPEGs, EXIF orientation): bytes, base64 text and a {@code data:} URL
 * are accepted; a {@code file:} URL only inside the folders the model was built with ({@code localImageFolders});
 * {@code http(s):} only when the model was built with remote images allowed. Bytes that do not come from a file are
 * written to a temporary file, deleted by {@link EncodedImages.Staged#close()}. URLs in messages are redacted.
 */
final class MediaSource {
    private final boolean allowRemote;
    private final List<Path> localFolders;

    MediaSource(boolean allowRemote, List<Path> localFolders) {
        this.allowRemote = allowRemote;
        this.localFolders = List.copyOf(localFolders);
    }

    /**
     * @param media the media
     * @param what its role, for messages ("init image", "reference image 0")
     * @return the staged file
     * @throws InvalidImageException when the media is not an image, or its data is malformed or unsupported
     */
    EncodedImages.Staged stage(Media media, String what) {
        if (!"image".equals(media.getMimeType().getType())) {
            throw new InvalidImageException(what + " has MIME type " + media.getMimeType() + ", expected image/*");
        }
        Object data = media.getData();
        if (data instanceof byte[] bytes) {
            return EncodedImages.temporary(bytes, what);
        }
        if (data instanceof URL url) {
            try {
                return fromUri(url.toURI(), what);
            } catch (URISyntaxException e) {
                throw new InvalidImageException(what + " URL " + EncodedImages.redact(url) + " is malformed: "
                        + e.getReason() + " at index " + e.getIndex());
            }
        }
        String text = String.valueOf(data).strip();
        int colon = text.indexOf(':');
        if (colon > 0 && text.substring(0, colon).matches("[A-Za-z][A-Za-z0-9+.-]*")) {
            try {
                return fromUri(new URI(text), what);
            } catch (URISyntaxException e) {
                if (text.regionMatches(true, 0, "data:", 0, 5)) {
                    return EncodedImages.temporary(EncodedImages.dataUrl(text, what), what);
                }
                throw new InvalidImageException(what + " URL " + EncodedImages.redact(text) + " is malformed: "
                        + e.getReason() + " at index " + e.getIndex());
            }
        }
        return EncodedImages.temporary(EncodedImages.base64(text, what + " (base64 data)"), what);
    }

    private EncodedImages.Staged fromUri(URI uri, String what) {
        String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
        return switch (scheme) {
            case "data" -> EncodedImages.temporary(EncodedImages.dataUrl(uri.toString(), what), what);
            case "file" -> {
                if (localFolders.isEmpty()) {
                    throw new InvalidImageException(what + " URL " + EncodedImages.redact(uri)
                            + " is a local file; local files are not read unless allowed"
                            + " (spring.ai.flux2.image.local-image-folders naming the folders that hold them;"
                            + " expected bytes, base64 or a data: URL)");
                }
                yield EncodedImages.file(uri, what, localFolders);
            }
            case "http", "https" -> {
                if (!allowRemote) {
                    throw new InvalidImageException(what + " URL " + EncodedImages.redact(uri)
                            + " is remote; remote images are not fetched unless allowed"
                            + " (spring.ai.flux2.image.allow-remote-images=true; expected bytes, base64, a data: or"
                            + " a file: URL)");
                }
                yield EncodedImages.temporary(EncodedImages.fetch(uri, what), what);
            }
            default ->
                throw new InvalidImageException(
                        what + " URL " + EncodedImages.redact(uri) + " has an unsupported scheme '" + scheme
                                + "' (expected bytes, base64, a data: or a file: URL)");
        };
    }
}
