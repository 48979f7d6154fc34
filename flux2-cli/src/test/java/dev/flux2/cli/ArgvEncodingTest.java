package dev.flux2.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.InvalidRequestException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link ArgvEncoding} against hand-made {@code /proc/self/cmdline} contents. */
class ArgvEncodingTest {
    @TempDir
    Path dir;

    private Path cmdline(byte[]... entries) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] e : entries) {
            out.write(e);
            out.write(0);
        }
        return Files.write(dir.resolve("cmdline"), out.toByteArray());
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void asciiDecodedArgumentsAreReadBackAsUtf8() throws IOException {
        // What the JVM made of "café" under LC_ALL=POSIX: each of its two non-ASCII bytes became '?'.
        String[] decoded = {"generate", "--prompt", "caf??"};
        Path raw = cmdline(
                utf8("java"), utf8("-jar"), utf8("flux2.jar"), utf8("generate"), utf8("--prompt"), utf8("caf\u00e9"));
        assertArrayEquals(
                new String[] {"generate", "--prompt", "caf\u00e9"},
                ArgvEncoding.recover(decoded, StandardCharsets.US_ASCII, raw));
    }

    @Test
    void aUtf8PlatformIsLeftAlone() throws IOException {
        String[] args = {"--prompt", "caf\u00e9"};
        assertSame(args, ArgvEncoding.recover(args, StandardCharsets.UTF_8, dir.resolve("absent")));
    }

    @Test
    void withoutTheRawBytesAQuestionMarkUnderAsciiIsRefusedNamingTheLocale() {
        String[] decoded = {"--prompt", "caf??"};
        InvalidRequestException e = assertThrows(
                InvalidRequestException.class,
                () -> ArgvEncoding.recover(decoded, StandardCharsets.US_ASCII, dir.resolve("absent")));
        assertTrue(e.getMessage().contains("LC_ALL=C.UTF-8") && e.getMessage().contains("argument 2"), e.getMessage());
    }

    @Test
    void bytesThatAreNotUtf8AreRefusedNotGuessed() throws IOException {
        String[] decoded = {"--prompt", "caf?"};
        Path raw = cmdline(utf8("java"), utf8("--prompt"), new byte[] {'c', 'a', 'f', (byte) 0xE9});
        assertThrows(
                InvalidRequestException.class, () -> ArgvEncoding.recover(decoded, StandardCharsets.US_ASCII, raw));
    }

    @Test
    void aCommandLineThatDoesNotLineUpIsNotUsed() throws IOException {
        // An @argfile: /proc holds "@args", not the arguments; plain ASCII arguments pass unchanged.
        String[] decoded = {"info", "--model", "m"};
        Path raw = cmdline(utf8("java"), utf8("@args"));
        assertSame(decoded, ArgvEncoding.recover(decoded, StandardCharsets.US_ASCII, raw));
    }
}
