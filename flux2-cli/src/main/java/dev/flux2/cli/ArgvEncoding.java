package dev.flux2.cli;

import dev.flux2.api.InvalidRequestException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Recovers non-ASCII arguments that the JVM decoded with a locale that cannot hold them.
 *
 * <p>The JVM decodes {@code argv} with {@code sun.jnu.encoding}, the locale's charset. Under {@code LC_ALL=POSIX} or
 * {@code C} (the default of containers, cron and systemd) that is ASCII, and every byte above 0x7F becomes {@code ?}:
 * {@code "café"} arrives as {@code "caf??"}, a different prompt and so a different image, without a word. On Linux
 * the raw bytes are still in {@code /proc/self/cmdline}, whose last entries are the program's arguments: when they
 * line up with the decoded arguments and are valid UTF-8 (what terminals send), they replace them. Arguments that
 * cannot be recovered (not UTF-8, or no {@code /proc}) are refused naming the locale, never used altered.
 */
final class ArgvEncoding {
    private static final Path CMDLINE = Path.of("/proc/self/cmdline");

    private ArgvEncoding() {}

    /**
     * @param args the arguments as the JVM decoded them
     * @return the same arguments, with those that the locale's charset altered decoded from their bytes as UTF-8
     * @throws InvalidRequestException naming the argument and the locale when one was altered and cannot be recovered
     */
    static String[] recover(String[] args) {
        return recover(args, jnuCharset(), CMDLINE);
    }

    static String[] recover(String[] args, Charset platform, Path cmdline) {
        if (platform.equals(StandardCharsets.UTF_8) || args.length == 0) {
            return args;
        }
        List<byte[]> raw = readEntries(cmdline);
        if (raw == null || raw.size() < args.length) {
            return refuseIfAltered(args, platform);
        }
        List<byte[]> tail = raw.subList(raw.size() - args.length, raw.size());
        String[] recovered = args.clone();
        for (int i = 0; i < args.length; i++) {
            byte[] bytes = tail.get(i);
            if (isAscii(bytes)) {
                if (!new String(bytes, StandardCharsets.US_ASCII).equals(args[i])) {
                    // The process's command line does not line up with main's arguments (an @argfile, say).
                    return refuseIfAltered(args, platform);
                }
                continue;
            }
            String utf8 = strictUtf8(bytes);
            if (utf8 == null || !sameExceptNonAscii(bytes, args[i])) {
                return refuseIfAltered(args, platform);
            }
            recovered[i] = utf8;
        }
        return recovered;
    }

    /** Without the raw bytes, an argument the charset cannot have produced from UTF-8 text unchanged is refused. */
    private static String[] refuseIfAltered(String[] args, Charset platform) {
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.indexOf('\uFFFD') >= 0 || (isAsciiCharset(platform) && a.indexOf('?') >= 0)) {
                throw new InvalidRequestException("argument " + (i + 1) + " (\"" + a + "\") may have lost non-ASCII"
                        + " characters: the JVM decoded the command line with " + platform.name() + " (locale "
                        + locale() + "), and its raw bytes could not be read back; run with a UTF-8 locale, e.g."
                        + " LC_ALL=C.UTF-8");
            }
        }
        return args;
    }

    /** Each byte above 0x7F decoded to one char ({@code ?}, U+FFFD or a Latin-1 letter); ASCII bytes unchanged. */
    private static boolean sameExceptNonAscii(byte[] bytes, String decoded) {
        if (decoded.length() != bytes.length) {
            return false;
        }
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] >= 0 && decoded.charAt(i) != bytes[i]) {
                return false;
            }
        }
        return true;
    }

    private static List<byte[]> readEntries(Path cmdline) {
        byte[] all;
        try {
            if (!Files.isReadable(cmdline)) {
                return null;
            }
            all = Files.readAllBytes(cmdline);
        } catch (IOException | SecurityException e) {
            return null;
        }
        List<byte[]> entries = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < all.length; i++) {
            if (all[i] == 0) {
                entries.add(Arrays.copyOfRange(all, start, i));
                start = i + 1;
            }
        }
        if (start < all.length) {
            entries.add(Arrays.copyOfRange(all, start, all.length));
        }
        return entries;
    }

    private static String strictUtf8(byte[] bytes) {
        CharsetDecoder decoder = StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        try {
            return decoder.decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    private static boolean isAscii(byte[] bytes) {
        for (byte b : bytes) {
            if (b < 0) {
                return false;
            }
        }
        return true;
    }

    private static boolean isAsciiCharset(Charset c) {
        return c.equals(StandardCharsets.US_ASCII);
    }

    private static Charset jnuCharset() {
        String name = System.getProperty("sun.jnu.encoding");
        try {
            return name == null ? Charset.defaultCharset() : Charset.forName(name);
        } catch (RuntimeException e) {
            return Charset.defaultCharset();
        }
    }

    private static String locale() {
        for (String v : new String[] {"LC_ALL", "LC_CTYPE", "LANG"}) {
            String value = System.getenv(v);
            if (value != null && !value.isEmpty()) {
                return v + "=" + value;
            }
        }
        return "unset, so POSIX";
    }
}
