package dev.flux2.server;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@code multipart/form-data} body already read into memory (bounded by the upload cap), split into its parts.
 * Only what the edits endpoint needs: each part's name, file name and bytes; nested multiparts are not supported.
 */
final class Multipart {
    static final int MAX_PARTS = 64;
    private static final Pattern BOUNDARY = Pattern.compile("(?i);\\s*boundary=(\"([^\"]{1,70})\"|([^;\\s]{1,70}))");
    private static final Pattern NAME = Pattern.compile("(?i);\\s*name=\"([^\"]*)\"");
    private static final Pattern FILENAME = Pattern.compile("(?i);\\s*filename=\"([^\"]*)\"");

    /**
     * @param name the form field
     * @param filename the file name, or null for a text field
     * @param contentType the part's content type, or null
     * @param body the bytes
     */
    record Part(String name, String filename, String contentType, byte[] body) {
        boolean isFile() {
            return filename != null;
        }

        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private Multipart() {}

    /** @return the boundary of a {@code multipart/form-data} content type @throws ApiError (400) when absent */
    static String boundary(String contentType) throws ApiError {
        Matcher m = BOUNDARY.matcher(contentType);
        if (!m.find()) {
            throw new ApiError(400, "multipart/form-data without a boundary parameter", null, "invalid_multipart");
        }
        return m.group(2) != null ? m.group(2) : m.group(3);
    }

    /**
     * @param body the whole body
     * @param boundary the boundary
     * @return the parts in order
     * @throws ApiError (400) naming what is malformed
     */
    static List<Part> parse(byte[] body, String boundary) throws ApiError {
        byte[] delimiter = ("--" + boundary).getBytes(StandardCharsets.ISO_8859_1);
        int at = indexOf(body, delimiter, 0);
        if (at < 0) {
            throw malformed("the boundary never occurs in the body");
        }
        List<Part> parts = new ArrayList<>();
        int pos = at + delimiter.length;
        while (true) {
            if (startsWith(body, pos, "--")) {
                return parts;
            }
            if (!startsWith(body, pos, "\r\n")) {
                throw malformed("a boundary is not followed by CRLF");
            }
            pos += 2;
            int headersEnd = indexOf(body, "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1), pos);
            if (headersEnd < 0 || headersEnd - pos > 8192) {
                throw malformed("a part's headers do not end (or exceed 8 KiB)");
            }
            String headers = new String(body, pos, headersEnd - pos, StandardCharsets.UTF_8);
            int contentStart = headersEnd + 4;
            byte[] next = ("\r\n--" + boundary).getBytes(StandardCharsets.ISO_8859_1);
            int end = indexOf(body, next, contentStart);
            if (end < 0) {
                throw malformed("the last part is not closed by its boundary (truncated body?)");
            }
            if (parts.size() == MAX_PARTS) {
                throw malformed("more than " + MAX_PARTS + " parts");
            }
            parts.add(part(headers, java.util.Arrays.copyOfRange(body, contentStart, end)));
            pos = end + next.length;
        }
    }

    private static Part part(String headers, byte[] content) throws ApiError {
        String disposition = null;
        String type = null;
        for (String line : headers.split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon < 0) {
                throw malformed("a part header without ':'");
            }
            String key = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = line.substring(colon + 1).trim();
            if (key.equals("content-disposition")) {
                disposition = value;
            } else if (key.equals("content-type")) {
                type = value;
            }
        }
        if (disposition == null || !disposition.toLowerCase(Locale.ROOT).startsWith("form-data")) {
            throw malformed("a part without Content-Disposition: form-data");
        }
        Matcher name = NAME.matcher(disposition);
        if (!name.find()) {
            throw malformed("a part without a name");
        }
        Matcher file = FILENAME.matcher(disposition);
        return new Part(name.group(1), file.find() ? file.group(1) : null, type, content);
    }

    private static ApiError malformed(String what) {
        return new ApiError(400, "malformed multipart/form-data body: " + what, null, "invalid_multipart");
    }

    private static boolean startsWith(byte[] body, int pos, String text) {
        if (pos + text.length() > body.length) {
            return false;
        }
        for (int i = 0; i < text.length(); i++) {
            if (body[pos + i] != text.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    static int indexOf(byte[] hay, byte[] needle, int from) {
        outer:
        for (int i = Math.max(0, from); i <= hay.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
