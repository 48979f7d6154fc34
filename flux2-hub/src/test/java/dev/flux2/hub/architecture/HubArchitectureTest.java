package dev.flux2.hub.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The architecture of flux2-hub (issue #23), checked on its compiled main classes: no package cycle, only
 * flux2-core's exported packages used (the facade, the API values and the SPI it implements; never the engine,
 * the image or math internals), no backend, and no public type in a package the module does not export.
 */
class HubArchitectureTest {
    static final Path MAIN_CLASSES = Path.of("target", "classes");

    static final ArchRule NO_PACKAGE_CYCLES = slices().assignedFrom(new SliceAssignment() {
                @Override
                public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
                    return SliceIdentifier.of(javaClass.getPackageName());
                }

                @Override
                public String getDescription() {
                    return "packages";
                }
            })
            .should()
            .beFreeOfCycles();

    static final ArchRule ONLY_CORES_EXPORTED_PACKAGES = noClasses()
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("dev.flux2.pipeline..", "dev.flux2.image..", "dev.flux2.math..", "dev.flux2.onnx..")
            .because("the hub plugs into flux2-core through its SPI and API only, and knows no backend");

    static JavaClasses hub;
    static ModuleDescriptor module;

    @BeforeAll
    static void importMainClasses() throws IOException {
        assertTrue(
                Files.isDirectory(MAIN_CLASSES), "compiled main classes expected at " + MAIN_CLASSES.toAbsolutePath());
        hub = new ClassFileImporter().importPath(MAIN_CLASSES);
        try (InputStream in = Files.newInputStream(MAIN_CLASSES.resolve("module-info.class"))) {
            module = ModuleDescriptor.read(in);
        }
    }

    @Test
    void noPackageCycles() {
        NO_PACKAGE_CYCLES.check(hub);
    }

    @Test
    void onlyCoresExportedPackagesAndNoBackend() {
        ONLY_CORES_EXPORTED_PACKAGES.check(hub);
    }

    @Test
    void everyPublicTypeIsInAnExportedPackage() {
        Set<String> exported =
                module.exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet());
        classes()
                .that()
                .arePublic()
                .and()
                .areTopLevelClasses()
                .should(new ArchCondition<JavaClass>("be in a package the module exports") {
                    @Override
                    public void check(JavaClass c, ConditionEvents events) {
                        events.add(new SimpleConditionEvent(
                                c,
                                exported.contains(c.getPackageName()),
                                c.getName() + " is public in " + c.getPackageName() + ", which module " + module.name()
                                        + " does not export: make it package-private"));
                    }
                })
                .check(hub);
    }
}
