package dev.flux2.hub;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the hub's file list ({@code sha}, {@code siblings[]}) as a stream, within named limits, so that a hostile
 * or broken answer (a 3-million-entry list, a deeply nested or huge document, an HTML page) ends in a message
 * naming the limit or what came instead, never in an {@code OutOfMemoryError} or a raw Jackson message. Only
 * {@code sha} and each sibling's {@code rfilename}, {@code size}, {@code blobId} and {@code lfs} are kept; every
 * other value is skipped without being built.
 */
final class ListingParser {
    /** The most files a file list may name (the hub itself advises well under 100,000 files per repository). */
    static final int MAX_FILES = 100_000;
    /** The most bytes a file list may have. */
    static final long MAX_BYTES = 64L << 20;
    /** The deepest nesting a file list may have (it needs 4). */
    static final int MAX_DEPTH = 64;
    /** The longest string a file list may hold. */
    static final int MAX_STRING = 64 << 10;

    private static final ObjectMapper JSON = new ObjectMapper(JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNestingDepth(MAX_DEPTH)
                    .maxStringLength(MAX_STRING)
                    .maxNumberLength(64)
                    .build())
            .build());
    private static final int SHOWN_BYTES = 80;

    private ListingParser() {}

    /** The fields kept: the commit ({@code ""} when absent) and the files. */
    record Parsed(String sha, List<RemoteFile> files) {}

    /**
     * @param body the answer's body (closed by the caller)
     * @param what what it is, for messages ({@code the file list of owner/name@main})
     * @param shownUrl the redacted URL, for messages
     * @param contentType the answer's {@code Content-Type} ({@code ""} when absent)
     * @param progress called whenever bytes arrive (the stall watchdog)
     * @return what the list holds
     * @throws HubException naming the limit broken or what came instead of JSON
     * @throws IOException when the transfer fails (the caller decides whether to retry)
     */
    static Parsed parse(InputStream body, String what, String shownUrl, String contentType, Runnable progress)
            throws IOException {
        Counting in = new Counting(body, progress);
        if (contentType.toLowerCase(java.util.Locale.ROOT).startsWith("text/html")) {
            throw notJson(what, shownUrl, contentType, in, "an HTML page");
        }
        try (JsonParser p = JSON.createParser(in)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw notJson(what, shownUrl, contentType, in, "not a JSON object");
            }
            String sha = "";
            List<RemoteFile> files = new ArrayList<>();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if (name.equals("sha") && value == JsonToken.VALUE_STRING) {
                    sha = p.getText();
                } else if (name.equals("siblings") && value == JsonToken.START_ARRAY) {
                    while (p.nextToken() != JsonToken.END_ARRAY) {
                        if (files.size() >= MAX_FILES) {
                            throw new HubException(what + " from " + shownUrl + " names more than " + MAX_FILES
                                    + " files (the limit on a file list); refusing to read it");
                        }
                        JsonNode s = p.readValueAsTree();
                        sibling(s).ifPresent(files::add);
                    }
                } else {
                    p.skipChildren();
                }
            }
            return new Parsed(sha, files);
        } catch (JsonProcessingException e) {
            if (in.over) {
                throw tooLarge(what, shownUrl);
            }
            String problem = e.getOriginalMessage();
            boolean limit = e instanceof com.fasterxml.jackson.core.exc.StreamConstraintsException;
            throw limit
                    ? new HubException(
                            what + " from " + shownUrl + " breaks a limit on a file list: " + oneLine(problem))
                    : notJson(what, shownUrl, contentType, in, "malformed JSON: " + oneLine(problem));
        } catch (TooLarge e) {
            throw tooLarge(what, shownUrl);
        }
    }

    private static java.util.Optional<RemoteFile> sibling(JsonNode s) {
        String name = s.path("rfilename").isTextual() ? s.get("rfilename").asText() : null;
        if (name == null) {
            return java.util.Optional.empty();
        }
        JsonNode lfs = s.path("lfs");
        long size = s.path("size").canConvertToLong() ? s.path("size").asLong() : -1;
        String etag;
        if (lfs.isObject() && lfs.hasNonNull("sha256")) {
            etag = lfs.get("sha256").asText();
            if (lfs.path("size").canConvertToLong()) {
                size = lfs.get("size").asLong();
            }
        } else {
            etag = s.hasNonNull("blobId") ? s.get("blobId").asText() : null;
        }
        return java.util.Optional.of(new RemoteFile(name, size, etag));
    }

    private static HubException tooLarge(String what, String shownUrl) {
        return new HubException(what + " from " + shownUrl + " is larger than " + (MAX_BYTES >> 20)
                + " MiB (the limit on a file list); refusing to read it");
    }

    private static HubException notJson(String what, String url, String type, Counting in, String kind) {
        in.fillHead();
        return new HubException(what + ": " + url + " answered " + kind + " instead of the hub's JSON file list"
                + " (Content-Type " + (type.isEmpty() ? "none" : "'" + sanitize(type) + "'") + ", starting with \""
                + sanitize(new String(in.head, 0, in.headLength, StandardCharsets.UTF_8)) + "\"): is "
                + url.replaceFirst("(//[^/]*).*", "$1") + " a Hugging Face hub, or a proxy or login page?");
    }

    /** Printable ASCII only, at most {@value #SHOWN_BYTES} characters: what came may be anything. */
    static String sanitize(String s) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < s.length() && sb.length() < SHOWN_BYTES; i++) {
            char c = s.charAt(i);
            sb.append(c >= 0x20 && c < 0x7F ? c : c == '\n' || c == '\r' || c == '\t' ? ' ' : '?');
        }
        return sb.toString().strip();
    }

    private static String oneLine(String s) {
        return sanitize(String.valueOf(s).replaceAll("\\s+", " "));
    }

    /** The byte limit was passed. */
    private static final class TooLarge extends IOException {
        private static final long serialVersionUID = 1L;
    }

    /** Counts bytes against {@link #MAX_BYTES} and keeps the first ones for a message. */
    private static final class Counting extends FilterInputStream {
        final byte[] head = new byte[SHOWN_BYTES];
        int headLength;
        long count;
        boolean over;

        private final Runnable progress;

        Counting(InputStream in, Runnable progress) {
            super(in);
            this.progress = progress;
        }

        /** Reads until the first bytes kept for a message are there (or the body ends or fails). */
        void fillHead() {
            byte[] buf = new byte[SHOWN_BYTES];
            try {
                while (headLength < SHOWN_BYTES && read(buf, 0, SHOWN_BYTES - headLength) >= 0) {
                    // read() keeps them in head
                }
            } catch (IOException e) {
                // What came so far is enough for the message.
            }
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (count >= MAX_BYTES) {
                over = true;
                throw new TooLarge();
            }
            int n = super.read(b, off, (int) Math.min(len, MAX_BYTES - count + 1));
            if (n > 0) {
                int keep = Math.min(n, SHOWN_BYTES - headLength);
                if (keep > 0) {
                    System.arraycopy(b, off, head, headLength, keep);
                    headLength += keep;
                }
                count += n;
                progress.run();
            }
            return n;
        }
    }
}
