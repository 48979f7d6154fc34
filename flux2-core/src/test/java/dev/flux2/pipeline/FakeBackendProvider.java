package dev.flux2.pipeline;

import dev.flux2.api.ModelLoadException;
import dev.flux2.api.ModelSummary;
import dev.flux2.spi.BackendConfig;
import dev.flux2.spi.Flux2Backend;
import dev.flux2.spi.Flux2BackendProvider;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Test backend provider, registered in the test {@code META-INF/services}: opens folders holding
 * {@value #MARKER} (a {@link FakeModel} as properties).
 */
public final class FakeBackendProvider implements Flux2BackendProvider {
    /** The marker file of a fake model folder. */
    public static final String MARKER = "fake-model.properties";
    /** The last backend opened, for tests to inspect. */
    public static final AtomicReference<FakeBackend> LAST_OPENED = new AtomicReference<>();
    /** The last config received. */
    public static final AtomicReference<BackendConfig> LAST_CONFIG = new AtomicReference<>();

    /** ServiceLoader constructor. */
    public FakeBackendProvider() {}

    @Override
    public String name() {
        return "fake";
    }

    @Override
    public boolean canOpen(Path modelDirectory) {
        return Files.isRegularFile(modelDirectory.resolve(MARKER));
    }

    @Override
    public Flux2Backend open(BackendConfig config) {
        LAST_CONFIG.set(config);
        FakeBackend backend =
                new FakeBackend(FakeModel.fromProperties(read(config.modelDirectory())), config.options());
        LAST_OPENED.set(backend);
        return backend;
    }

    @Override
    public ModelSummary inspect(Path modelDirectory) {
        FakeModel model = FakeModel.fromProperties(read(modelDirectory));
        return new ModelSummary(
                modelDirectory,
                name(),
                model.variant(),
                List.of(new ModelSummary.FileEntry(MARKER, -1, 1, false, "")),
                List.of(),
                Map.of());
    }

    private static Properties read(Path directory) {
        Properties props = new Properties();
        try (Reader reader = Files.newBufferedReader(directory.resolve(MARKER))) {
            props.load(reader);
        } catch (IOException e) {
            throw new ModelLoadException("cannot read " + directory.resolve(MARKER) + ": " + e.getMessage(), e);
        }
        return props;
    }
}
