package dev.flux2;

import dev.flux2.api.Flux2Exception;
import dev.flux2.api.InvalidImageException;
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
 * Encoded images as the framework adapters receive them (base64 text, {@code data:}, {@code file:} and
 * {@code http(s):} URLs, raw bytes), turned into an image file that {@link ImageFiles#read} then reads with its own
 * checks (size from the header against the limits, CMYK JPEGs, EXIF orientation). The one home of these rules for
 * LangChain4j's and Spring AI's adapters; each adapter decides which forms it accepts and how its messages name them.
 * Every refusal is an {@link InvalidImageException} naming {@code what} (the image's role, e.g. "image", "mask").
 */
public final class EncodedImages {
    /** An encoded image above this size is refused before it is decoded (the pixel limits apply after). */
    public static final long MAX_ENCODED_BYTES = 256L << 20;

    private static final Duration REMOTE_TIMEOUT = Duration.ofSeconds(30);

    private EncodedImages() {}

    /**
     * A file holding an image, and whether it is ours to delete.
     *
     * @param path the file
     * @param temporary whether {@link #close()} deletes it
     */
    public record Staged(Path path, boolean temporary) implements AutoCloseable {
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
     * @param uri a URL
     * @return its scheme in lower case, empty when it has none
     */
    public static String scheme(URI uri) {
        return uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    }

    /**
     * @param uri a {@code file:} URL
     * @param what the image's role, for messages
     * @return the file it names, not to be deleted
     */
    public static Staged file(URI uri, String what) {
        try {
            return new Staged(Paths.get(uri), false);
        } catch (IllegalArgumentException | java.nio.file.FileSystemNotFoundException e) {
            throw new InvalidImageException(
                    what + " URL " + uri + " is not an absolute file: URL (expected file:///path/to/image.png): "
                            + e.getMessage(),
                    e);
        }
    }

    /**
     * @param url a {@code data:} URL, base64-encoded
     * @param what the image's role, for messages
     * @return its bytes
     */
    public static byte[] dataUrl(String url, String what) {
        int comma = url.indexOf(',');
        if (comma < 0) {
            throw new InvalidImageException(what + " data: URL has no ',' before its data");
        }
        String header = url.substring("data:".length(), comma).toLowerCase(Locale.ROOT);
        if (!header.endsWith(";base64")) {
            throw new InvalidImageException(
                    what + " data: URL must be base64-encoded (data:image/png;base64,...), got data:" + header);
        }
        return base64(url.substring(comma + 1), what + " (data: URL)");
    }

    /**
     * @param base64 base64 text (MIME line breaks allowed)
     * @param what the image's role and form, for messages
     * @return its bytes, refused above {@link #MAX_ENCODED_BYTES} before decoding
     */
    public static byte[] base64(String base64, String what) {
        if (base64.length() / 4 * 3L > MAX_ENCODED_BYTES) {
            throw new InvalidImageException(what + " is over " + MAX_ENCODED_BYTES + " bytes encoded");
        }
        try {
            return Base64.getMimeDecoder().decode(base64.strip());
        } catch (IllegalArgumentException e) {
            throw new InvalidImageException(what + " is not valid base64: " + e.getMessage(), e);
        }
    }

    /**
     * Fetches an {@code http(s):} URL (30 s connect and request timeouts, redirects followed, at most
     * {@link #MAX_ENCODED_BYTES}); whether remote images may be fetched at all is the caller's decision.
     *
     * @param url the URL
     * @param what the image's role, for messages
     * @return the body
     */
    public static byte[] fetch(URI url, String what) {
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

    /**
     * @param bytes an encoded image
     * @param what the image's role, for the file name and messages
     * @return a temporary file holding the bytes, deleted by {@link Staged#close()}
     */
    public static Staged temporary(byte[] bytes, String what) {
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
