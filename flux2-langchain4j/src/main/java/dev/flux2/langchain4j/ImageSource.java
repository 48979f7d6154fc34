package dev.flux2.langchain4j;

import dev.flux2.api.Flux2Exception;
import dev.flux2.api.InvalidImageException;
import dev.langchain4j.data.image.Image;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Base64;
import java.util.Locale;

/**
 * Turns a LangChain4j {@link Image} into an image file that {@code GenerationRequest} reads with its own checks (the
 * size from the header against the limits, CMYK JPEGs, EXIF orientation): base64 data, a {@code data:} URL and a
 * {@code file:} URL are accepted; {@code http(s):} only when the model was built with remote images allowed. Bytes that
 * do not come from a file are written to a temporary file, deleted by {@link Staged#close()}.
 */
final class ImageSource {
    /** An encoded image above this size is refused before it is decoded (the pixel limits apply after). */
    static final long MAX_ENCODED_BYTES = 256L << 20;

    private static final Duration REMOTE_TIMEOUT = Duration.ofSeconds(30);

    private final boolean allowRemote;

    ImageSource(boolean allowRemote) {
        this.allowRemote = allowRemote;
    }

    /**
     * A file holding an image, and whether it is ours to delete.
     *
     * @param path the file
     * @param temporary whether {@link #close()} deletes it
     */
    record Staged(Path path, boolean temporary) implements AutoCloseable {
        @Override
        public void close() {
            if (temporary) {
                try {
                    Files.deleteIfExists(path);
                } catch (IOException e) {
                    path.toFile().deleteOnExit();
                }
            }
        }
    }

    /**
     * @param image the LangChain4j image
     * @param what its role, for messages ("image", "mask")
     * @return the staged file
     * @throws InvalidImageException when the image has no data, a malformed one or an unsupported URL scheme
     */
    Staged stage(Image image, String what) {
        if (image == null) {
            throw new InvalidImageException(what + " must not be null");
        }
        if (image.base64Data() != null && !image.base64Data().isBlank()) {
            return temporary(decode(image.base64Data(), what + " (base64 data)"), what);
        }
        URI url = image.url();
        if (url == null) {
            throw new InvalidImageException(what + " has neither base64 data nor a URL");
        }
        String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
        return switch (scheme) {
            case "data" -> temporary(dataUrl(url.toString(), what), what);
            case "file" -> new Staged(filePath(url, what), false);
            case "http", "https" -> {
                if (!allowRemote) {
                    throw new InvalidImageException(what + " URL " + url
                            + " is remote; remote images are not fetched unless the model is built with"
                            + " allowRemoteImages(true) (expected base64 data, a data: or a file: URL)");
                }
                yield temporary(fetch(url, what), what);
            }
            default ->
                throw new InvalidImageException(what + " URL " + url + " has an unsupported scheme '" + scheme
                        + "' (expected base64 data, a data: or a file: URL)");
        };
    }

    private static Path filePath(URI uri, String what) {
        try {
            return Paths.get(uri);
        } catch (IllegalArgumentException | java.nio.file.FileSystemNotFoundException e) {
            throw new InvalidImageException(
                    what + " URL " + uri + " is not an absolute file: URL (expected file:///path/to/image.png): "
                            + e.getMessage(),
                    e);
        }
    }

    private static byte[] dataUrl(String url, String what) {
        int comma = url.indexOf(',');
        if (comma < 0) {
            throw new InvalidImageException(what + " data: URL has no ',' before its data");
        }
        String header = url.substring("data:".length(), comma).toLowerCase(Locale.ROOT);
        if (!header.endsWith(";base64")) {
            throw new InvalidImageException(
                    what + " data: URL must be base64-encoded (data:image/png;base64,...), got data:" + header);
        }
        return decode(url.substring(comma + 1), what + " (data: URL)");
    }

    private static byte[] decode(String base64, String what) {
        if (base64.length() / 4 * 3L > MAX_ENCODED_BYTES) {
            throw new InvalidImageException(what + " is over " + MAX_ENCODED_BYTES + " bytes encoded");
        }
        try {
            return Base64.getMimeDecoder().decode(base64.strip());
        } catch (IllegalArgumentException e) {
            throw new InvalidImageException(what + " is not valid base64: " + e.getMessage(), e);
        }
    }

    private static byte[] fetch(URI url, String what) {
        HttpClient client = HttpClient.newBuilder()
                .connectTimeout(REMOTE_TIMEOUT)
                .followRedirects(HttpClient.Redirect.NORMAL)
                .build();
        try {
            HttpResponse<InputStream> response = client.send(
                    HttpRequest.newBuilder(url).timeout(REMOTE_TIMEOUT).GET().build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream body = response.body()) {
                if (response.statusCode() != 200) {
                    throw new InvalidImageException(
                            what + " URL " + url + " answered HTTP " + response.statusCode() + ", expected 200");
                }
                byte[] bytes = body.readNBytes((int) MAX_ENCODED_BYTES + 1);
                if (bytes.length > MAX_ENCODED_BYTES) {
                    throw new InvalidImageException(what + " URL " + url + " is over " + MAX_ENCODED_BYTES + " bytes");
                }
                return bytes;
            }
        } catch (IOException e) {
            throw new InvalidImageException(what + " URL " + url + " cannot be fetched: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InvalidImageException(what + " URL " + url + " fetch was interrupted", e);
        }
    }

    private static Staged temporary(byte[] bytes, String what) {
        try {
            Path file = Files.createTempFile("flux2-" + what.replaceAll("[^a-z0-9]", "") + "-", ".img");
            try {
                Files.write(file, bytes);
            } catch (IOException e) {
                Files.deleteIfExists(file);
                throw e;
            }
            return new Staged(file, true);
        } catch (IOException e) {
            throw new Flux2Exception("cannot stage the " + what + " in a temporary file: " + e.getMessage(), e);
        }
    }
}
