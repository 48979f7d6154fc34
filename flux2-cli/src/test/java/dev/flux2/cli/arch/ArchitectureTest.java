package dev.flux2.cli.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import dev.flux2.testkit.arch.ArchitectureRules;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * flux2-cli's architecture (issue #23): an application on the libraries' public packages only, no package cycle,
 * and nothing public that nothing outside its package needs.
 */
class ArchitectureTest {
    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = ArchitectureRules.mainClasses("dev.flux2.cli");
    }

    @Test
    void noPackageCycles() {
        ArchitectureRules.assertNoPackageCycles(classes);
    }

    @Test
    void publicOnlyWhereNeeded() {
        // Not a module: no package is exported, the main class is the one public type.
        ArchitectureRules.assertPublicOnlyWhereNeeded(
                classes,
                Set.of(),
                Set.of(
                        // The jar's Main-Class, which the adapters' and Spark's tests also run in-process.
                        "dev.flux2.cli.Flux2Cli"));
    }

    @Test
    void usesNoInternalPackageOfTheLibraries() {
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "dev.flux2.pipeline..",
                        "dev.flux2.image..",
                        "dev.flux2.math..",
                        "dev.flux2.onnx",
                        "dev.flux2.onnx.graph..",
                        "dev.flux2.onnx.passes..",
                        "dev.flux2.onnx.derived..",
                        "dev.flux2.onnx.memory..",
                        "dev.flux2.onnx.session..",
                        "dev.flux2.onnx.stage..",
                        "dev.flux2.onnx.tensor..",
                        "dev.flux2.onnx.bundle..")
                .because("the CLI is an application of the public API, the hub, the server and flux2-onnx's"
                        + " exported options and runtime packages")
                .check(classes);
    }
}
