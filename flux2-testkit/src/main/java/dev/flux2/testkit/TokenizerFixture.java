package dev.flux2.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.zip.GZIPInputStream;

/**
 * The Qwen3 tokenizer shipped with flux2-testkit (provenance and licence in {@code qwen3-tokenizer/README.md} beside
 * this class's resources) and the reference token ids computed with it.
 *
 * <p>{@link #copyTo(Path)} writes {@code tokenizer.json} and {@code tokenizer_config.json} into a folder, checking
 * the unpacked {@code tokenizer.json} against its recorded SHA-256, so a damaged jar fails loudly instead of
 * tokenizing differently. {@link #directory()} does that once per JVM into a temporary folder.
 */
public final class TokenizerFixture {
    /** SHA-256 of the uncompressed {@code tokenizer.json}. */
    public static final String TOKENIZER_JSON_SHA256 =
            "aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4";

    private static final String BASE = "/dev/flux2/testkit/";
    private static Path extracted;

    private TokenizerFixture() {}

    /**
     * @return a folder holding the fixture's {@code tokenizer.json} and {@code tokenizer_config.json}, unpacked once
     *     per JVM (deleted when the JVM exits); callers must not modify it
     * @throws UncheckedIOException if it cannot be written
     */
    public static synchronized Path directory() {
        if (extracted == null) {
            try {
                Path dir = Files.createTempDirectory("flux2-qwen3-tokenizer");
                copyTo(dir);
                for (String name : new String[] {"tokenizer.json", "tokenizer_config.json"}) {
                    dir.resolve(name).toFile().deleteOnExit();
                }
                dir.toFile().deleteOnExit();
                extracted = dir;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot unpack the tokenizer fixture", e);
            }
        }
        return extracted;
    }

    /**
     * Writes {@code tokenizer.json} and {@code tokenizer_config.json} into {@code target} (created if needed).
     *
     * @param target the folder
     * @throws UncheckedIOException if a file cannot be written or the packed fixture is damaged
     */
    public static void copyTo(Path target) {
        try {
            Files.createDirectories(target);
            Path json = target.resolve("tokenizer.json");
            MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
            try (InputStream in = new DigestInputStream(
                            new GZIPInputStream(resource("qwen3-tokenizer/tokenizer.json.gz")), sha256);
                    OutputStream out = Files.newOutputStream(json)) {
                in.transferTo(out);
            }
            String actual = HexFormat.of().formatHex(sha256.digest());
            if (!actual.equals(TOKENIZER_JSON_SHA256)) {
                throw new IOException("unpacked tokenizer.json has sha256 " + actual + ", expected "
                        + TOKENIZER_JSON_SHA256 + " (damaged flux2-testkit jar?)");
            }
            try (InputStream in = resource("qwen3-tokenizer/tokenizer_config.json")) {
                Files.copy(in, target.resolve("tokenizer_config.json"), StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the tokenizer fixture to " + target, e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is a mandatory JDK algorithm", e);
        }
    }

    /**
     * @return the reference tokenization of a set of prompts ({@code reference/tokenizer-goldens.json}):
     *     {@code pad_token_id}, {@code cases[]} (prompt, rendered, input_ids, real_tokens, pad_id, padding_side,
     *     mask_is_prefix_ones) and {@code raw_encodings[]} (text, ids)
     */
    public static JsonNode goldens() {
        try (InputStream in = resource("reference/tokenizer-goldens.json")) {
            return new ObjectMapper().readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the tokenizer goldens", e);
        }
    }

    private static InputStream resource(String name) throws IOException {
        InputStream in = TokenizerFixture.class.getResourceAsStream(BASE + name);
        if (in == null) {
            throw new IOException("resource " + BASE + name + " is missing from flux2-testkit");
        }
        return in;
    }
}
