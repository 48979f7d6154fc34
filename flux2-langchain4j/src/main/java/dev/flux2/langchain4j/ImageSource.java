package dev.flux2.langchain4j;

import dev.flux2.EncodedImages;
import dev.flux2.api.InvalidImageException;
import dev.langchain4j.data.image.Image;
import java.net.URI;

/**
 * Turns a LangChain4j {@link Image} into an image file that {@code GenerationRequest} reads with its own checks (the
 * size from the header against the limits, CMYK JPEGs, EXIF orientation): base64 data, a {@code data:} URL and a
 * {@code file:} URL are accepted; {@code http(s):} only when the model was built with remote images allowed. Bytes that
 * do not come from a file are written to a temporary file, deleted by {@link EncodedImages.Staged#close()}.
 */
final class ImageSource {
    private final boolean allowRemote;

    ImageSource(boolean allowRemote) {
        this.allowRemote = allowRemote;
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
            case "file" -> EncodedImages.file(url, what);
            case "http", "https" -> {
                if (!allowRemote) {
                    throw new InvalidImageException(what + " URL " + url
                            + " is remote; remote images are not fetched unless the model is built with"
                            + " allowRemoteImages(true) (expected base64 data, a data: or a file: URL)");
                }
                yield EncodedImages.temporary(EncodedImages.fetch(url, what), what);
            }
            default ->
                throw new InvalidImageException(what + " URL " + url + " has an unsupported scheme '" + scheme
                        + "' (expected base64 data, a data: or a file: URL)");
        };
    }
}
