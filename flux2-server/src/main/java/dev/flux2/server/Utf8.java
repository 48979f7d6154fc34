package dev.flux2.server;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;

/**
 * Strict UTF-8: the JDK's decoder refuses overlong forms, encoded surrogates and truncated sequences, which
 * Jackson's byte parser lets through (an overlong {@code C0 AF} would reach the tokenizer as {@code /}).
 */
final class Utf8 {
    private Utf8() {}

    /**
     * @param bytes a body or a multipart text field
     * @param what what it is, for the message
     * @throws ApiError (400) naming the byte offset
     */
    static void check(byte[] bytes, String what) throws ApiError {
        CharsetDecoder decoder = StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        try {
            decoder.decode(in);
        } catch (MalformedInputException e) {
            throw new ApiError(
                    400,
                    what + " is not valid UTF-8 (overlong, surrogate or truncated sequence at byte " + in.position()
                            + ")",
                    null,
                    "invalid_encoding");
        } catch (CharacterCodingException e) {
            throw new ApiError(400, what + " is not valid UTF-8: " + e, null, "invalid_encoding");
        }
    }

    /**
     * @param text a decoded string (a JSON escape can still produce a lone surrogate)
     * @param field the field, for the message
     * @throws ApiError (400) naming the field and the index
     */
    static void checkText(String text, String field) throws ApiError {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw ApiError.invalid(
                        field,
                        "'" + field + "' holds a lone UTF-16 surrogate (\\u" + Integer.toHexString(c) + ") at index "
                                + i);
            }
        }
    }
}
