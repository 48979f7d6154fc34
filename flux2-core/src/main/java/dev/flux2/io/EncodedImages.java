package dev.flux2.io;

import dev.flux2.api.Flux2Exception;
import dev.flux2.api.InvalidImageException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Encoded images as the framework adapters receive them (base64 text, {@code data:}, {@code file:} and
 * {@code http(s):} URLs, raw bytes), turned into an image file that {@link dev.flux2.ImageFiles#read} then reads with
 * its own checks (size from the header against the limits, CMYK JPEGs, EXIF orientation). The one home of these
 * rules for LangChain4j's and Spring AI's adapters; each adapter decides which forms it accepts and how its messages
 * name them. Every refusal is an {@link InvalidImageException} naming {@code what} (the image's role, e.g. "image",
 * "mask").
 *
 * <p>What a remote caller of an application may reach is bounded (issue #33, docs/hostile-input.md): a {@code file:}
 * URL names a file inside folders the application allowed ({@link #file}), a remote image is fetched within a total
 * time and size ({@link #fetch}), and a URL is shown in a message without its user information ({@link #redact}).
 */
public final class EncodedImages {
    /** An encoded image above this size is refused before it is decoded (the pixel limits apply after). */
    public static final long MAX_ENCODED_BYTES = 256L << 20;

    /** The whole fetch of a remote image, connection, headers and body, must end within this time. */
    public static final Duration REMOTE_TIMEOUT = Duration.ofSeconds(30);

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
     * A URL as a message may show it: the user information of a hierarchical URL ({@code user:password@} before the
     * host) replaced by {@code ***}, so that a password never reaches a log or an error answer. Works on text that is
     * not a valid URI too (the authority is what follows {@code //} up to the first {@code /}, {@code ?} or
     * {@code #}; its part up to the last {@code @} is replaced).
     *
     * @param url a URL, as given
     * @return the URL without its user information
     */
    public static String redact(Object url) {
        String text = String.valueOf(url);
        int slashes = text.indexOf("//");
        if (slashes < 0) {
            return text;
        }
        int start = slashes + 2;
        int end = start;
        while (end < text.length() && "/?#".indexOf(text.charAt(end)) < 0) {
            end++;
        }
        int at = text.lastIndexOf('@', end - 1);
        if (at < start) {
            return text;
        }
        return text.substring(0, start) + "***" + text.substring(at);
    }

    /**
     * A {@code file:} URL, confined to the folders an application allowed: the file (its real path, links
     * resolved) must lie inside one of them, so that a caller who only controls the URL cannot read other files.
     *
     * @param uri a {@code file:} URL
     * @param what the image's role, for messages
     * @param folders the folders whose files may be read; empty refuses every file
     * @return the file it names, links resolved, not to be deleted
     */
    public static Staged file(URI uri, String what, List<Path> folders) {
        Path path;
        try {
            path = Paths.get(uri);
        } catch (IllegalArgumentException | java.nio.file.FileSystemNotFoundException e) {
            throw new InvalidImageException(what + " URL " + redact(uri)
                    + " is not an absolute file: URL (expected file:///path/to/image.png): " + e.getMessage());
        }
        Path real = realOrNormal(path);
        for (Path folder : folders) {
            if (real.startsWith(realOrNormal(folder))) {
                return new Staged(real, false);
            }
        }
        throw new InvalidImageException(what + " URL " + redact(uri) + " names a file outside the folders allowed for"
                + " local images " + folders + (path.equals(real) ? "" : " (it resolves to " + real + ")"));
    }

    private static Path realOrNormal(Path path) {
        try {
            return path.toRealPath();
        } catch (IOException | SecurityException e) {
            // A missing file: ImageFiles.read names it; the check is on its normalised absolute path.
            return path.toAbsolutePath().normalize();
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
     * Fetches an {@code http(s):} URL, redirects followed, within {@link #REMOTE_TIMEOUT} in total (connection,
     * headers and body: a server that stalls or drips after its headers is cut off) and at most
     * {@link #MAX_ENCODED_BYTES}; whether remote images may be fetched at all is the caller's decision.
     *
     * @param url the URL
     * @param what the image's role, for messages
     * @return the body
     */
    public static byte[] fetch(URI url, String what) {
        return fetch(url, what, REMOTE_TIMEOUT, MAX_ENCODED_BYTES);
    }

    /** {@link #fetch(URI, String)} with its bounds given (the tests' short ones). */
    static byte[] fetch(URI url, String what, Duration total, long maxBytes) {
        String shown = what + " URL " + redact(url);
        HttpRequest request;
        try {
            request = HttpRequest.newBuilder(url).timeout(total).GET().build();
        } catch (IllegalArgumentException e) {
            // Not chained: the JDK's message repeats the URL with its user information.
            throw new InvalidImageException(shown + " cannot be fetched: not an http(s) URL with a host");
        }
        HttpClient client = HttpClient.newBuilder()
                .connectTimeout(total)
                .followRedirects(HttpClient.Redirect.NORMAL)
                .build();
        BoundedBody body = new BoundedBody(maxBytes);
        CompletableFuture<java.net.http.HttpResponse<byte[]>> response = client.sendAsync(request, body::forStatus);
        try {
            return response.get(total.toNanos(), TimeUnit.NANOSECONDS).body();
        } catch (TimeoutException e) {
            body.cancel();
            response.cancel(true);
            throw new InvalidImageException(shown + " was not received within " + seconds(total) + " (connection,"
                    + " headers and body; " + body.received() + " bytes of the body had arrived)");
        } catch (ExecutionException e) {
            throw failure(shown, e.getCause(), total, maxBytes);
        } catch (InterruptedException e) {
            body.cancel();
            response.cancel(true);
            Thread.currentThread().interrupt();
            throw new InvalidImageException(shown + " fetch was interrupted");
        }
    }

    private static InvalidImageException failure(String shown, Throwable cause, Duration total, long maxBytes) {
        if (cause instanceof BoundedBody.WrongStatus status) {
            return new InvalidImageException(shown + " answered HTTP " + status.code + ", expected 200");
        }
        if (cause instanceof BoundedBody.TooLarge) {
            return new InvalidImageException(shown + " is over " + maxBytes + " bytes");
        }
        if (cause instanceof HttpTimeoutException) {
            return new InvalidImageException(
                    shown + " was not received within " + seconds(total) + " (" + describe(cause) + ")");
        }
        return new InvalidImageException(shown + " cannot be fetched: " + describe(cause));
    }

    /** An exception's message, or its kind when it has none (a refused connection's has none). */
    private static String describe(Throwable e) {
        Throwable t = e;
        while (t.getMessage() == null && t.getCause() != null) {
            t = t.getCause();
        }
        String kind = t.getClass().getSimpleName();
        if (t.getMessage() == null) {
            return kind.equals("ConnectException") ? "connection refused" : kind;
        }
        return redact(t.getMessage());
    }

    private static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
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
