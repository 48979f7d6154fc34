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

    @Test
    void aHugeQueueIsRefusedNamingItsMaximumBeforeTheModelLoads() {
        int[] code = new int[1];
        long start = System.nanoTime();
        String[] lines = run(code, "--model", dir.toString(), "--queue", "1000000000");
        assertEquals(2, code[0], String.join("\n", lines));
        assertEquals(1, lines.length, String.join("\n", lines));
        assertTrue(lines[0].contains("queueCapacity must be in 0..4096") && lines[0].contains("1000000000"), lines[0]);
        assertTrue(System.nanoTime() - start < 5_000_000_000L, "refused at once");
    }

    @Test
    void anUnresolvableHostIsCalledUnresolvableNotNonLoopback() {
        int[] code = new int[1];
        String[] lines = run(code, "--model", dir.toString(), "--host", "localhots.invalid");
        assertEquals(2, code[0], String.join("\n", lines));
        assertEquals(1, lines.length, String.join("\n", lines));
        assertTrue(lines[0].contains("'localhots.invalid' cannot be resolved"), lines[0]);
        assertTrue(!lines[0].contains("not a loopback"), lines[0]);
    }

    @Test
    void aBusyPortIsReportedWithItsReasonBeforeTheModelLoads() throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            int[] code = new int[1];
            // The folder holds no model: had the model been loaded first, this would be a model error (exit 3).
            String[] lines = run(code, "--model", dir.toString(), "--port", Integer.toString(taken.getLocalPort()));
            assertEquals(1, code[0], String.join("\n", lines));
            assertEquals(1, lines.length, String.join("\n", lines));
            assertTrue(
                    lines[0].contains("cannot listen on 127.0.0.1:" + taken.getLocalPort())
                            && lines[0].contains("already in use"),
                    lines[0]);
        }
    }

    @Test
    void aKeyFileThatIsAFifoOrHugeIsRefusedWithoutHanging() throws Exception {
        Path fifo = dir.resolve("key.fifo");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertEquals(0, mkfifo.waitFor());
        int[] code = new int[1];
        long start = System.nanoTime();
        String[] lines = run(code, "--model", dir.toString(), "--api-key-file", fifo.toString());
        assertEquals(2, code[0], String.join("\n", lines));
        assertTrue(lines[0].contains("--api-key-file") && lines[0].contains("not a regular file"), lines[0]);
        assertTrue(System.nanoTime() - start < 5_000_000_000L, "refused at once, not blocked on the FIFO");

        lines = run(code, "--model", dir.toString(), "--api-key-file", "/dev/zero");
        assertEquals(2, code[0], String.join("\n", lines));
        assertTrue(lines[0].contains("not a regular file"), lines[0]);

        Path huge = java.nio.file.Files.write(dir.resolve("huge-key"), new byte[1 << 20]);
        lines = run(code, "--model", dir.toString(), "--api-key-file", huge.toString());
        assertEquals(2, code[0], String.join("\n", lines));
        assertTrue(lines[0].contains("larger than 4096 bytes"), lines[0]);
    }

    @Test
    void theModelIsAFolderOrARepoIdAsInGenerate() {
        int[] code = new int[1];
        // A repo id is taken as one (not as a missing folder): offline and in no cache, it is the model error.
        String[] lines = run(code, "--model", "flux2-test-nobody/absent-model", "--offline");
        assertEquals(3, code[0], String.join("\n", lines));
        assertEquals(1, lines.length, String.join("\n", lines));
        assertTrue(
                lines[0].startsWith("flux2: model error: ") && lines[0].contains("flux2-test-nobody/absent-model"),
                lines[0]);
        // Without --model, the pinned default model, as every other command (parsed only: nothing is loaded).
        ServeCommand serve = new ServeCommand();
        new picocli.CommandLine(serve).parseArgs();
        assertEquals(dev.flux2.hub.ModelNames.DEFAULT_MODEL, serve.modelOption.model);
        serve = new ServeCommand();
        new picocli.CommandLine(serve).parseArgs("--model", dir.toString());
        assertEquals(dir.toString(), serve.modelOption.model);
    }

    @Test
    void noUiTurnsThePlaygroundOff() {
        ServeCommand on = new ServeCommand();
        new picocli.CommandLine(on).parseArgs("--model", dir.toString());
        assertTrue(!on.noUi, "the page is on by default");
        ServeCommand off = new ServeCommand();
        new picocli.CommandLine(off).parseArgs("--model", dir.toString(), "--no-ui");
        assertTrue(off.noUi);
    }
}
