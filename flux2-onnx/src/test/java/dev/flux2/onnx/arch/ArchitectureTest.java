package dev.flux2.onnx.arch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.tngtech.archunit.core.domain.JavaClasses;
import dev.flux2.onnx.OnnxBackendProvider;
import dev.flux2.testkit.arch.ArchitectureRules;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** flux2-onnx's architecture (issue #23): no package cycle, and public only where needed. */
class ArchitectureTest {
    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = ArchitectureRules.mainClasses("dev.flux2.onnx");
    }

    @Test
    void noPackageCycles() {
        ArchitectureRules.assertNoPackageCycles(classes);
    }

    @Test
    void exportsTheOptionsAndTheRuntimeOnly() {
        assertEquals(
                Set.of("dev.flux2.onnx.options", "dev.flux2.onnx.runtime"),
                ArchitectureRules.exportedPackages(OnnxBackendProvider.class));
    }

    @Test
    void publicOnlyWhereAnotherPackageOrTheBenchmarksNeedIt() {
        ArchitectureRules.assertPublicOnlyWhereNeeded(
                classes,
                ArchitectureRules.exportedPackages(OnnxBackendProvider.class),
                Set.of(
                        // ServiceLoader instantiates it (provides ... with, and META-INF/services on the class path).
                        "dev.flux2.onnx.OnnxBackendProvider",
                        // The benchmarks time the stages one by one (the qualified exports to dev.flux2.bench).
                        "dev.flux2.onnx.bundle.OnnxBundle",
                        "dev.flux2.onnx.bundle.GraphKeys",
                        "dev.flux2.onnx.session.NativeHeapTrim",
                        "dev.flux2.onnx.session.SessionLifecycleClock",
                        "dev.flux2.onnx.stage.OnnxTextEmbedding",
                        // The end-to-end tests of other packages count the sessions left open.
                        "dev.flux2.onnx.session.OpenSessionCounter",
                        // The stages' tests read their configs from seed files.
                        "dev.flux2.onnx.bundle.BundleConfigReader"));
    }
}
