package dev.flux2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.GenerationResult;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.api.MemoryPolicy;
import dev.flux2.api.ModelLoadException;
import dev.flux2.api.ModelSummary;
import dev.flux2.api.PipelineClosedException;
import dev.flux2.pipeline.FakeBackend;
import dev.flux2.pipeline.FakeBackendProvider;
import dev.flux2.spi.BackendConfig;
import dev.flux2.spi.ModelResolver;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Flux2Pipeline.Builder} validation and ServiceLoader discovery of the test backend. */
class Flux2PipelineTest {
    @TempDir
    Path dir;

    private Path fakeModel(String properties) throws IOException {
        Files.writeString(dir.resolve(FakeBackendProvider.MARKER), properties);
        return dir;
    }

    @Test
    void discoversTheRegisteredBackendAndGenerates() throws IOException {
        Path model = fakeModel("variant=discovered\ndefaultWidth=32\ndefaultHeight=48\n");
        GenerationResult result;
        FakeBackend backend;
        try (Flux2Pipeline pipeline = Flux2Pipeline.builder().model(model).build()) {
            backend = FakeBackendProvider.LAST_OPENED.get();
            assertEquals("discovered", pipeline.modelInfo().variant());
            result = pipeline.generate("a fox");
            assertFalse(result.first().metadata().seed().isEmpty(), "a random seed is reported");
        }
        assertEquals(32, result.first().image().getWidth());
        assertEquals(48, result.first().image().getHeight());
        assertEquals("a fox", result.first().metadata().prompt());
        assertEquals(1, backend.closeCount.get(), "closing the pipeline closes its backend once");
    }

    @Test
    void builderOptionsReachTheBackend() throws IOException {
        Path model = fakeModel("");
        try (Flux2Pipeline pipeline = Flux2Pipeline.builder()
                .model(model)
                .memoryPolicy(MemoryPolicy.RESIDENT)
                .backendOption("threads", "3")
                .backendOption("providers", "cuda")
                .backendOption("k", "v")
                .backendOption("threads", "4")
                .backend("fake")
                .build()) {
            assertEquals("fake-distilled", pipeline.modelInfo().variant());
        }
        BackendConfig config = FakeBackendProvider.LAST_CONFIG.get();
        assertEquals(model, config.modelDirectory());
        assertEquals(MemoryPolicy.RESIDENT, config.memoryPolicy());
        assertEquals(Map.of("threads", "4", "providers", "cuda", "k", "v"), config.options());
        assertEquals(
                List.of("threads", "providers", "k"),
                List.copyOf(config.options().keySet()),
                "options keep the order they were first set in; a later value replaces an earlier one");
    }

    @Test
    void generateAfterCloseThrows() throws IOException {
        Flux2Pipeline pipeline = Flux2Pipeline.builder().model(fakeModel("")).build();
        pipeline.close();
        pipeline.close();
        assertThrows(PipelineClosedException.class, () -> pipeline.generate("x"));
        assertEquals(1, FakeBackendProvider.LAST_OPENED.get().closeCount.get());
    }

    @Test
    void folderNoBackendRecognisesIsExplained() {
        ModelLoadException e = assertThrows(
                ModelLoadException.class,
                () -> Flux2Pipeline.builder().model(dir).build());
        assertTrue(
                e.getMessage().contains("no backend recognises")
                        && e.getMessage().contains("fake"),
                e.getMessage());
    }

    @Test
    void unknownBackendNameIsExplained() throws IOException {
        Path model = fakeModel("");
        ModelLoadException e = assertThrows(
                ModelLoadException.class,
                () -> Flux2Pipeline.builder().model(model).backend("onnx-gpu").build());
        assertTrue(e.getMessage().contains("no backend named 'onnx-gpu'"), e.getMessage());
    }

    @Test
    void modelMustBeAnExistingDirectory() throws IOException {
        Path file = Files.writeString(dir.resolve("model.onnx"), "x");
        ModelLoadException notDir = assertThrows(
                ModelLoadException.class,
                () -> Flux2Pipeline.builder().model(file).build());
        assertTrue(notDir.getMessage().contains("does not exist or is not a directory"), notDir.getMessage());
        assertTrue(notDir.getMessage().contains("model.onnx"), notDir.getMessage());
        Path missing = dir.resolve("missing");
        ModelLoadException absent = assertThrows(
                ModelLoadException.class,
                () -> Flux2Pipeline.builder().model(missing).build());
        assertTrue(absent.getMessage().contains("missing"), absent.getMessage());
    }

    @Test
    void modelDirectoryIsRequired() {
        InvalidRequestException e = assertThrows(
                InvalidRequestException.class, () -> Flux2Pipeline.builder().build());
        assertTrue(e.getMessage().contains("model must be set"), e.getMessage());
    }

    @Test
    void aNameWithoutAResolverOnTheClassPathIsAModelLoadExceptionSayingSo() {
        ModelLoadException e = assertThrows(
                ModelLoadException.class,
                () -> Flux2Pipeline.builder().model("owner/name@main").build());
        assertTrue(
                e.getMessage().contains("no model resolver is on the classpath")
                        && e.getMessage().contains("flux2-hub"),
                e.getMessage());
    }

    @Test
    void aGivenModelResolverResolvesTheNameAndOnlyIt() throws IOException {
        Path model = fakeModel("variant=resolved\n");
        ModelResolver resolver = new ModelResolver() {
            @Override
            public String name() {
                return "test";
            }

            @Override
            public boolean accepts(String reference) {
                return reference.equals("owner/name");
            }

            @Override
            public Path resolve(String reference) {
                return model;
            }
        };
        try (Flux2Pipeline pipeline = Flux2Pipeline.builder()
                .model("owner/name")
                .modelResolver(resolver)
                .build()) {
            assertEquals("resolved", pipeline.modelInfo().variant());
        }
        ModelLoadException e = assertThrows(
                ModelLoadException.class,
                () -> Flux2Pipeline.builder()
                        .model("other/name")
                        .modelResolver(resolver)
                        .build());
        assertTrue(e.getMessage().contains("not a model name model resolver 'test' accepts"), e.getMessage());
    }

    @Test
    void nullSettingsAreRejected() {
        assertThrows(
                InvalidRequestException.class,
                () -> Flux2Pipeline.builder().model(dir).memoryPolicy(null).build());
        InvalidRequestException key = assertThrows(
                InvalidRequestException.class,
                () -> Flux2Pipeline.builder()
                        .model(dir)
                        .backendOption(null, "4")
                        .build());
        assertTrue(
                key.getMessage().contains("backendOption") && key.getMessage().contains("null=4"), key.getMessage());
        InvalidRequestException value = assertThrows(
                InvalidRequestException.class,
                () -> Flux2Pipeline.builder()
                        .model(dir)
                        .backendOption("threads", null)
                        .build());
        assertTrue(value.getMessage().contains("threads=null"), value.getMessage());
    }

    @Test
    void inspectDescribesTheFolder() throws IOException {
        ModelSummary summary = Flux2Models.inspect(fakeModel("variant=v1\n"));
        assertEquals("fake", summary.backend());
        assertEquals("v1", summary.variant());
        assertSame(dir, summary.directory());
    }
}
