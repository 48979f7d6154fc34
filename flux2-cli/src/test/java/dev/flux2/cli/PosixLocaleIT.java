package dev.flux2.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flux2.testkit.TokenizerFixture;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #24, "silently wrong results": under {@code LC_ALL=POSIX} the JVM decodes argv as ASCII, so a non-ASCII
 * prompt arrived with every such byte as {@code ?}. The CLI jar runs as a process in that locale, its prompt's bytes
 * made by the shell's {@code printf} (not by this JVM's encoder), and must tokenize the prompt that was typed.
 */
@EnabledOnOs(OS.LINUX)
class PosixLocaleIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PROMPT = "caf\u00e9 \u2603 \u732b";
    /** The same prompt's UTF-8 bytes as printf escapes. */
    private static final String PRINTF = "caf\\303\\251 \\342\\230\\203 \\347\\214\\253";

    @TempDir
    Path dir;

    @Test
    void aNonAsciiPromptUnderThePosixLocaleIsTheTypedPrompt() throws Exception {
        Path bundle = Files.createDirectories(dir.resolve("bundle"));
        TokenizerFixture.copyTo(bundle.resolve("tok"));
        Files.writeString(
                bundle.resolve("flux2-config.json"),
                "{\"model_variant\": \"t\", \"num_steps\": 4, \"text_seq_len\": 32, \"default_width\": 64,"
                        + " \"default_height\": 64, \"tokenizer_dir\": \"tok\", \"context_dim\": 64, \"models\":"
                        + " {\"text_encoder\": {\"file\": \"te.onnx\"}, \"transformer\": {\"file\": \"tr.onnx\"},"
                        + " \"vae_decoder\": {\"file\": \"vae.onnx\"}}}");
        ProcessBuilder pb = new ProcessBuilder(
                        "/bin/sh",
                        "-c",
                        "exec \"$0\" -Xmx512m -jar \"$1\" tokenize --model \"$2\" --prompt \"$(printf '" + PRINTF
                                + "')\"",
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        CliProcess.jar().toAbsolutePath().toString(),
                        bundle.toString())
                .redirectErrorStream(false);
        pb.environment().keySet().removeIf(k -> k.startsWith("LC_") || k.equals("LANG"));
        pb.environment().put("LC_ALL", "POSIX");
        pb.environment().put("DJL_OFFLINE", "true");
        pb.environment().put("OPT_OUT_TRACKING", "true");
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        byte[] err = p.getErrorStream().readAllBytes();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        String stderr = new String(err, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), stderr);
        JsonNode posix = JSON.readTree(out);

        CliHarness.Run typed = CliHarness.run("tokenize", "--model", bundle.toString(), "--prompt", PROMPT);
        assertEquals(0, typed.exitCode(), typed.err());
        CliHarness.Run mangled = CliHarness.run("tokenize", "--model", bundle.toString(), "--prompt", "caf?? ??? ???");
        JsonNode expected = JSON.readTree(typed.out());
        assertNotEquals(
                JSON.readTree(mangled.out()).get("input_ids"),
                expected.get("input_ids"),
                "the test must tell them apart");
        assertEquals(expected.get("input_ids"), posix.get("input_ids"), stderr);
    }
}
