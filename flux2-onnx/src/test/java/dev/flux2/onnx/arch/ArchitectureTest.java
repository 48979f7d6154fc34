package dev.flux2.onnx.arch;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.tngtech.archunit.core.domain.JavaClasses;
import dev.flux2.onnx.OnnxBackendProvider;
import dev.flux2.testkit.arch.ArchitectureRules;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * flux2-onnx's architecture (issues #23, #28): no package cycle, public only where needed, and the layers of the
 * derived graphs: the graph toolkit at the bottom, the passes on it, the plan and the store on the passes.
 */
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
    void theGraphToolkitDependsOnNothingElseInFlux2Onnx() {
        noClasses()
                .that()
                .resideInAPackage("dev.flux2.onnx.graph..")
                .should()
                .dependOnClassesThat(
                        resideInAPackage("dev.flux2.onnx..").and(not(resideInAPackage("dev.flux2.onnx.graph.."))))
                .because("every graph pass is written on it; it is the bottom layer (docs/architecture.md)")
                .check(classes);
    }

    @Test
    void thePassesDependOnlyOnTheGraphToolkit() {
        noClasses()
                .that()
                .resideInAPackage("dev.flux2.onnx.passes..")
                .should()
                .dependOnClassesThat(resideInAPackage("dev.flux2.onnx..")
                        .and(not(resideInAnyPackage("dev.flux2.onnx.passes..", "dev.flux2.onnx.graph.."))))
                .because("a pass rewrites a graph message, knowing no option, provider, bundle or session")
                .check(classes);
    }

    @Test
    void thePlanAndTheStoreDependOnPassesOptionsAndTheBundlesGraphNamesOnly() {
        noClasses()
                .that()
                .resideInAPackage("dev.flux2.onnx.derived..")
                .should()
                .dependOnClassesThat(resideInAPackage("dev.flux2.onnx..")
                        .and(not(resideInAnyPackage(
                                "dev.flux2.onnx.derived..",
                                "dev.flux2.onnx.passes..",
                                "dev.flux2.onnx.options..",
                                "dev.flux2.onnx.bundle.."))))
                .because("which graph gets which passes is decided from the options and the providers alone, not from"
                        + " sessions or stages")
                .check(classes);
    }

    @Test
    void nothingButThePlanAndTheBenchmarksChoosePasses() {
        noClasses()
                .that()
                .resideOutsideOfPackages("dev.flux2.onnx.derived..", "dev.flux2.onnx.passes..")
                .and()
                .doNotHaveFullyQualifiedName("dev.flux2.onnx.BundleInspector")
                .and()
                .doNotHaveFullyQualifiedName("dev.flux2.onnx.lora.LoraFactors")
                .should()
                .dependOnClassesThat(resideInAPackage("dev.flux2.onnx.passes.."))
                .because("one plan decides which graph gets which passes (BundleInspector only inspects; LoraFactors"
                        + " only reads the LoRA inputs the lora-branches pass names, LoraSlot)")
                .check(classes);
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
                        // The benchmarks open their sessions as the backend does (the qualified exports to
                        // dev.flux2.bench).
                        "dev.flux2.onnx.BackendAssembly",
                        // The benchmarks time the stages one by one.
                        "dev.flux2.onnx.bundle.OnnxBundle",
                        "dev.flux2.onnx.bundle.GraphKeys",
                        "dev.flux2.onnx.session.NativeHeapTrim",
                        "dev.flux2.onnx.session.SessionLifecycleClock",
                        "dev.flux2.onnx.stage.OnnxTextEmbedding",
                        // The end-to-end tests of other packages count the sessions left open.
                        "dev.flux2.onnx.session.OpenSessionCounter",
                        // The result of the public GraphPass interface: every pass returns it (the benchmarks apply
                        // passes one by one).
                        "dev.flux2.onnx.passes.PassOutcome",
                        // The stages' tests read their configs from seed files.
                        "dev.flux2.onnx.bundle.BundleConfigReader",
                        // LoRA (issue #30): the pass is applied through GraphPass like the others; the reader and the
                        // factor feeds are what the stages will call once they feed LoRA graphs (not wired yet).
                        "dev.flux2.onnx.passes.LoraBranches",
                        "dev.flux2.onnx.lora.LoraAdapterFile",
                        "dev.flux2.onnx.lora.LoraFactors",
                        "dev.flux2.onnx.lora.LoraFiles",
                        "dev.flux2.onnx.lora.LoraFormat",
                        "dev.flux2.onnx.lora.LoraLayer"));
    }
}
