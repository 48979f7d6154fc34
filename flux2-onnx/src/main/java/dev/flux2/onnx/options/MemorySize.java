package dev.flux2.onnx.options;

import dev.flux2.api.InvalidRequestException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A byte count written as bytes or with a binary unit: {@code 8589934592}, {@code 8g}, {@code 8GiB}, {@code 512m},
 * {@code 512MB} (k, m, g, t are 1024-based whatever the spelling, as memory sizes are). Stateless.
 */
final class MemorySize {
    /** One mebibyte. */
    static final long MIB = 1L << 20;

    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(|b|k|kb|kib|m|mb|mib|g|gb|gib|t|tb|tib)");

    private MemorySize() {}

    /**
     * @param key the option, for the message
     * @param value the text
     * @return the bytes
     * @throws InvalidRequestException naming the option, the value and the accepted forms
     */
    static long parse(String key, String value) {
        Matcher m = SIZE.matcher(value.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw bad(key, value);
        }
        int shift = switch (m.group(2).isEmpty() ? 'b' : m.group(2).charAt(0)) {
            case 'k' -> 10;
            case 'm' -> 20;
            case 'g' -> 30;
            case 't' -> 40;
            default -> 0;
        };
        try {
            long n = Long.parseLong(m.group(1));
            if (n > Long.MAX_VALUE >> shift) {
                throw bad(key, value);
            }
            return n << shift;
        } catch (NumberFormatException e) {
            throw bad(key, value);
        }
    }

    private static InvalidRequestException bad(String key, String value) {
        return new InvalidRequestException("backend option " + key + " must be a size in bytes or with a unit (8g,"
                + " 8GiB, 512m), got '" + value + "'");
    }
}
