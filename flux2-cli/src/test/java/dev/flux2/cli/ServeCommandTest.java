package dev.flux2.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code flux2 serve} refuses bad options and limits as the {@code flux2} command line does: one line, exit 2. */
class ServeCommandTest {
    @TempDir
    Path dir;

    private static String[] run(int[] code, String... args) {
        StringWriter err = new StringWriter();
        code[0] = ServeCommand.execute(new PrintWriter(err, true), args);
        return err.toString().strip().split("\\R");
    }

    @Test
    void aLimitOutOfRangeIsOneLineAndExit2BeforeTheModelLoads() {
        int[] code = new int[1];
        // The folder holds no model: the limit must be refused first.
        String[] lines = run(code, "--model", dir.toString(), "--max-pixels", "1");
        assertEquals(2, code[0], String.join("\n", lines));
        assertEquals(1, lines.length, String.join("\n", lines));
        assertTrue(lines[0].startsWith("flux2: invalid request: ") && lines[0].contains("maxPixels"), lines[0]);
    }

    @Test
    void anUnknownOptionIsExit2() {
        int[] code = new int[1];
        String[] lines = run(code, "--model", dir.toString(), "--max-pixel", "5");
        assertEquals(2, code[0]);
        assertTrue(lines[0].startsWith("flux2: Unknown option"), lines[0]);
    }

    @Test
    void aMissingModelIsExit3() {
        int[] code = new int[1];
        String[] lines = run(code, "--model", dir.resolve("absent").toString());
        assertEquals(3, code[0], String.join("\n", lines));
        assertEquals(1, lines.length, String.join("\n", lines));
        assertTrue(lines[0].startsWith("flux2: model error: "), lines[0]);
    }

    @Test
    void aNonLoopbackHostWithoutAKeyIsRefusedBeforeTheModelLoads() {
        int[] code = new int[1];
        String[] lines = run(code, "--model", dir.toString(), "--host", "0.0.0.0");
        assertEquals(2, code[0], String.join("\n", lines));
        assertEquals(1, lines.length, String.join("\n", lines));
        assertTrue(lines[0].contains("0.0.0.0") && lines[0].contains("--allow-unauthenticated"), lines[0]);
    }

    @Test
    void aKeyFileWithAControlCharacterIsRefusedWithoutShowingTheKey() throws Exception {
        Path key = java.nio.file.Files.writeString(dir.resolve("key"), "sk-very\u0001secret\n");
        int[] code = new int[1];
        String[] lines = run(code, "--model", dir.toString(), "--api-key-file", key.toString());
        assertEquals(2, code[0], String.join("\n", lines));
        assertTrue(lines[0].contains("--api-key-file") && !lines[0].contains("secret"), lines[0]);
    }
}
