package dev.flux2.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.ModelLoadException;
import dev.flux2.spi.ModelResolver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The rule telling a folder that does not exist from a model name (issue #33): a mistyped folder is named as a
 * missing folder, never sent to a resolver (whose network error would never say the folder does not exist).
 */
class ModelLocatorTest {
    @TempDir
    Path dir;

    /** Records what it is asked to resolve and answers with the test's folder. */
    private final class Recording implements ModelResolver {
        final List<String> asked = new ArrayList<>();

        @Override
        public String name() {
            return "recording";
        }

        @Override
        public boolean accepts(String reference) {
            return true;
        }

        @Override
        public Path resolve(String reference) {
            asked.add(reference);
            return dir;
        }
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "src/demo-bundel", // the module's src folder exists: a typo in a folder below it
                "./demo-bundel",
                "../demo-bundel",
                ".hidden/model",
                "/no/such/bundle",
                "~/models/klein",
                "models\\klein",
                "owner/name/",
                "a/b/c",
                "target/x/y@main"
            })
    void aReferenceThatLooksLikeAPathIsAMissingFolderAndNoResolverIsAsked(String ref) {
        Recording resolver = new Recording();

        ModelLoadException e = assertThrows(ModelLoadException.class, () -> ModelLocator.resolve(ref, resolver));

        assertEquals(List.of(), resolver.asked, "no resolver may be asked for " + ref);
        assertTrue(e.getMessage().startsWith("model folder "), e.getMessage());
        assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
        assertTrue(e.getMessage().contains("taken for a folder, not a repo id, because "), e.getMessage());
    }

    @Test
    void theMissingFolderIsNamedWithItsAbsolutePath() {
        ModelLoadException e =
                assertThrows(ModelLoadException.class, () -> ModelLocator.resolve("src/demo-bundel", new Recording()));

        assertTrue(
                e.getMessage()
                        .contains(Path.of("src/demo-bundel").toAbsolutePath().toString()),
                e.getMessage());
        assertTrue(e.getMessage().contains("its first part 'src' is an existing folder"), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"owner/name", "owner/name@main", "owner/name@refs/pr/1", "black-forest-labs/klein@v1.0"})
    void aRepoIdShapeWhoseOwnerIsNoFolderHereGoesToTheResolver(String ref) {
        Recording resolver = new Recording();

        assertEquals(dir, ModelLocator.resolve(ref, resolver));
        assertEquals(List.of(ref), resolver.asked);
    }

    @Test
    void anExistingFolderIsUsedWhateverItLooksLike() throws Exception {
        Path nested = Files.createDirectories(dir.resolve("a").resolve("b"));
        Recording resolver = new Recording();

        assertEquals(nested, ModelLocator.resolve(nested.toString(), resolver));
        assertEquals(List.of(), resolver.asked);
    }
}
