package dev.flux2.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.ModelLoadException;
import dev.flux2.api.ModelSummary;
import dev.flux2.spi.BackendConfig;
import dev.flux2.spi.Flux2Backend;
import dev.flux2.spi.Flux2BackendProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Backend selection rules, including the branches ServiceLoader alone cannot reach in a test. */
class BackendLocatorTest {
    @TempDir
    Path dir;

    @Test
    void emptyClasspathIsExplained() {
        ModelLoadException e =
                assertThrows(ModelLoadException.class, () -> BackendLocator.select(dir, null, List.of()));
        assertTrue(e.getMessage().contains("no FLUX.2 backend on the classpath"), e.getMessage());
    }

    @Test
    void namedBackendIsChosenEvenIfAnotherRecognisesTheFolder() throws Exception {
        Files.writeString(dir.resolve(FakeBackendProvider.MARKER), "");
        Flux2BackendProvider fake = new FakeBackendProvider();
        Flux2BackendProvider other = new Named("other");
        assertEquals(other, BackendLocator.select(dir, "OTHER", List.of(fake, other)));
        assertEquals(fake, BackendLocator.select(dir, null, List.of(other, fake)));
    }

    @Test
    void unknownNameListsTheAvailableBackends() {
        ModelLoadException e = assertThrows(
                ModelLoadException.class,
                () -> BackendLocator.select(dir, "cuda-magic", List.of(new Named("a"), new Named("b"))));
        assertTrue(e.getMessage().contains("'cuda-magic'") && e.getMessage().contains("a, b"), e.getMessage());
    }

    @Test
    void providerFailuresBecomeModelLoadExceptions() throws Exception {
        Files.writeString(dir.resolve(FakeBackendProvider.MARKER), "defaultSteps=notanumber\n");
        BackendConfig config = new BackendConfig(dir, dev.flux2.api.MemoryPolicy.SEQUENTIAL, java.util.Map.of());
        ModelLoadException e = assertThrows(ModelLoadException.class, () -> BackendLocator.open(config, null));
        assertTrue(e.getMessage().contains("backend 'fake' failed to open"), e.getMessage());
        assertTrue(e.getCause() instanceof NumberFormatException);
    }

    @Test
    void inspectUsesTheRecognisingBackend() throws Exception {
        Files.writeString(dir.resolve(FakeBackendProvider.MARKER), "variant=inspected\n");
        ModelSummary summary = BackendLocator.inspect(dir);
        assertEquals("fake", summary.backend());
        assertEquals("inspected", summary.variant());
    }

    /** A provider that recognises nothing. */
    private record Named(String name) implements Flux2BackendProvider {
        @Override
        public boolean canOpen(Path modelDirectory) {
            return false;
        }

        @Override
        public Flux2Backend open(BackendConfig config) {
            throw new AssertionError("not expected to open");
        }

        @Override
        public ModelSummary inspect(Path modelDirectory) {
            throw new AssertionError("not expected to inspect");
        }
    }
}
