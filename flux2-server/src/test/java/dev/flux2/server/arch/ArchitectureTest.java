package dev.flux2.server.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import dev.flux2.testkit.arch.ArchitectureRules;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * flux2-server's architecture (issue #23): the service on the public API only (any backend, no engine internals),
 * no package cycle, and public only what its users (the CLI's {@code serve}, applications embedding it) need.
 */
class ArchitectureTest {
    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = ArchitectureRules.mainClasses("dev.flux2.server");
    }

    @Test
    void noPackageCycles() {
        ArchitectureRules.assertNoPackageCycles(classes);
    }

    @Test
    void publicOnlyWhatEmbeddersUse() {
        // Not a module: no package is exported; these are what `flux2 serve` and an embedding application call.
        ArchitectureRules.assertPublicOnlyWhereNeeded(
                classes,
                Set.of(),
                Set.of(
                        "dev.flux2.server.ImageService",
                        "dev.flux2.server.ServiceConfig",
                        "dev.flux2.server.BoundPort",
                        "dev.flux2.server.ImageGenerator"));
    }

    @Test
    void dependsOnThePublicApiOnly() {
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "dev.flux2.pipeline..",
                        "dev.flux2.image..",
                        "dev.flux2.math..",
                        "dev.flux2.spi..",
                        "dev.flux2.onnx..",
                        "dev.flux2.hub..",
                        "dev.flux2.tokenizer..")
                .because("the service runs any backend behind the public API")
                .check(classes);
    }
}
