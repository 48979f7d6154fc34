package dev.flux2.api;

import java.util.Locale;

/**
 * The one rule for text a request carries (a prompt, a path): it must be valid Unicode, every UTF-16 surrogate part
 * of a pair. A Java string can hold an unpaired one (a JSON escape {@code \\ud800}); encoded to UTF-8 for the
 * tokenizer or a file system it silently becomes {@code ?}, so another prompt would be generated. Used by the
 * tokenizer (the CLI's and the server's last check) and the Spark job's input check. Stateless.
 */
public final class UnicodeText {
    private UnicodeText() {}

    /**
     * @param text the text
     * @return the index of the first unpaired surrogate, or -1 when the text is valid Unicode
     */
    public static int firstLoneSurrogate(String text) {
        int length = text.length();
        for (int i = 0; i < length; i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < length && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * @param text the text to check
     * @param what what it is, for the message ({@code prompt}, {@code column prompt})
     * @return {@code text}
     * @throws InvalidRequestException naming {@code what}, the code unit and its index when a surrogate is unpaired
     */
    public static String requireWellFormed(String text, String what) {
        int i = firstLoneSurrogate(text);
        if (i >= 0) {
            throw new InvalidRequestException(what + " must be valid Unicode text, but has an unpaired UTF-16"
                    + " surrogate U+" + Integer.toHexString(text.charAt(i)).toUpperCase(Locale.ROOT) + " at index " + i
                    + " (it would become '?' and another prompt would be generated)");
        }
        return text;
    }
}
