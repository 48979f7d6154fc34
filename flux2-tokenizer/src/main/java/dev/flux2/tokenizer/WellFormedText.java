package dev.flux2.tokenizer;

/**
 * Rejects text that is not valid Unicode. A Java string can hold an unpaired UTF-16 surrogate; the reference (a
 * Python string passed to HuggingFace tokenizers) cannot encode one, and the JNI bridge would silently turn it into
 * some other bytes, so there is no reference behaviour to reproduce. Stateless.
 */
final class WellFormedText {

    private WellFormedText() {}

    /**
     * Checks that every surrogate in the text is part of a pair.
     *
     * @param text the text to check
     * @param parameter the parameter name used in the message, e.g. {@code prompt}
     * @return {@code text}
     * @throws dev.flux2.api.InvalidRequestException naming the parameter and the index of the first unpaired surrogate
     */
    static String require(String text, String parameter) {
        return dev.flux2.api.UnicodeText.requireWellFormed(text, parameter);
    }
}
