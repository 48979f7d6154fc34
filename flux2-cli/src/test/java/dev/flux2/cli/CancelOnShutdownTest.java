package dev.flux2.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.CancellationToken;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The Ctrl-C hook cancels the token and waits until the command has unwound. */
class CancelOnShutdownTest {
    @Test
    void hookCancelsAndWaitsForTheCommandToUnwind() throws Exception {
        CancellationToken token = new CancellationToken();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CancelOnShutdown guard = CancelOnShutdown.install(
                token, new PrintStream(err, true, StandardCharsets.UTF_8), Duration.ofSeconds(30));
        Thread hook = new Thread(guard::onShutdown);
        hook.start();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!token.isCancelled() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertTrue(token.isCancelled(), "the hook cancels the generation");
        hook.join(200);
        assertTrue(hook.isAlive(), "the hook waits while the generation unwinds");
        guard.close();
        hook.join(5000);
        assertFalse(hook.isAlive(), "the hook returns once the command has unwound");
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("cancelling"));
    }

    @Test
    void signalCancelsWithoutWaiting() {
        CancellationToken token = new CancellationToken();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try (CancelOnShutdown guard = CancelOnShutdown.install(
                token, new PrintStream(err, true, StandardCharsets.UTF_8), Duration.ofSeconds(30))) {
            // Returns at once: the command, not the signal handler, waits for the generation to unwind, so no
            // ONNX Runtime call is in flight when the JVM's shutdown (and ONNX Runtime's own hook) starts.
            guard.onSignal();
            assertTrue(token.isCancelled(), "the signal cancels the generation");
        }
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("cancelling"));
    }

    @Test
    void hookDoesNothingAfterTheCommandFinished() {
        CancellationToken token = new CancellationToken();
        CancelOnShutdown guard =
                CancelOnShutdown.install(token, new PrintStream(new ByteArrayOutputStream()), Duration.ofSeconds(1));
        guard.close();
        guard.onShutdown();
        assertFalse(token.isCancelled());
    }
}
