package dev.flux2.langchain4j;

import dev.flux2.api.InvalidImageException;
import dev.flux2.io.EncodedImages;
import dev.langchain4j.data.image.Image;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;

/**
 * Turns a LangChain4j {@link Image} into an image file that {@code GenerationRequest} reads with its own checks (the
 * size from the header against the limits, CMYK JPEGs, EXIF orientation): base64 data and a {@code data:} URL are
 * accepted; a {@code file:} URL only inside the folders the model was built with ({@code localImageFolders});
 * {@code http(s):} only when the model was built with remote images allowed. Bytes that do not come from a file are
 * written to a temporary file, deleted by {@link EncodedImages.Staged#close()}. URLs in messages are redacted.
 */
final class ImageSource {
    private final boolean allowRemote;
    private final List<Path> localFolders;

    ImageSource(boolean allowRemote, List<Path> localFolders) {
        this.allowRemote = allowRemote;
        this.localFolders = List.copyOf(localFolders);
    }

    /**
     * @param image the LangChain4j image
     * @param what its role, for messages ("image", "mask")
     * @return the staged file
     * @throws InvalidImageException when the image has no data, a malformed one or an unsupported URL scheme
     */
    EncodedImages.Staged stage(Image image, String what) {
        if (image == null) {
            throw new InvalidImageException(what + " must not be null");
        }
        if (image.base64Data() != null && !image.base64Data().isBlank()) {
            return EncodedImages.temporary(EncodedImages.base64(image.base64Data(), what + " (base64 data)"), what);
        }
        URI url = image.url();
        if (url == null) {
            throw new InvalidImageException(what + " has neither base64 data nor a URL");
        }
        String scheme = EncodedImages.scheme(url);
        return switch (scheme) {
            case "data" -> EncodedImages.temporary(EncodedImages.dataUrl(url.toString(), what), what);
            case "file" -> {
                if (localFolders.isEmpty()) {
                    throw new InvalidImageException(what + " URL " + EncodedImages.redact(url)
                            + " is a local file; local files are not read unless the model is built with"
                            + " localImageFolders(...) naming the folders that hold them (expected base64 data or a"
                            + " data: URL)");
                }
                yield EncodedImages.file(url, what, localFolders);
            }
            case "http", "https" -> {
                if (!allowRemote) {
                    throw new InvalidImageException(what + " URL " + EncodedImages.redact(url)
                            + " is remote; remote images are not fetched unless the model is built with"
                            + " allowRemoteImages(true) (expected base64 data, a data: or a file: URL)");
                }
                yield EncodedImages.temporary(EncodedImages.fetch(url, what), what);
            }
            default ->
                throw new InvalidImageException(what + " URL " + EncodedImages.redact(url)
                        + " has an unsupported scheme '" + scheme + "' (expected base64 data, a data: or a file: URL)");
        };
    }
}
