package dev.flux2.testkit.arch;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.module.ModuleDescriptor;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The architecture tests' shared rules (issue #23), on ArchUnit: a module's packages form no cycle, and a type is
 * public only where something outside its package needs it. Each module's {@code ArchitectureTest} applies them
 * to its own main classes. Stateless.
 */
public final class ArchitectureRules {
    private ArchitectureRules() {}

    /**
     * @param rootPackage the module's root package, e.g. {@code dev.flux2.onnx}
     * @return the module's main classes under it (no test classes, nothing from jars)
     */
    public static JavaClasses mainClasses(String rootPackage) {
        JavaClasses classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
                .importPackages(rootPackage);
        if (classes.isEmpty()) {
            throw new AssertionError("no main classes under " + rootPackage + " on the class path");
        }
        return classes;
    }

    /**
     * Fails when the packages of {@code classes} depend on each other in a cycle, naming the classes of each
     * dependency that closes one.
     *
     * @param classes the module's classes
     */
    public static void assertNoPackageCycles(JavaClasses classes) {
        slices().assignedFrom(new SliceAssignment() {
                    @Override
                    public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
                        return SliceIdentifier.of(javaClass.getPackageName());
                    }

                    @Override
                    public String getDescription() {
                        return "the packages";
                    }
                })
                .should()
                .beFreeOfCycles()
                .check(classes);
    }

    /**
     * The packages a JPMS module exports to every module (qualified exports are not counted: those packages are
     * internal to every other module).
     *
     * @param anyClassOfTheModule a class of the module, to find its compiled {@code module-info.class}
     * @return the exported packages' names
     */
    public static Set<String> exportedPackages(Class<?> anyClassOfTheModule) {
        try {
            Path root = Path.of(anyClassOfTheModule
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
            try (InputStream in = Files.newInputStream(root.resolve("module-info.class"))) {
                return ModuleDescriptor.read(in).exports().stream()
                        .filter(e -> !e.isQualified())
                        .map(ModuleDescriptor.Exports::source)
                        .collect(Collectors.toCollection(TreeSet::new));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Fails for every public top-level type that is neither in an exported package, nor used by a class of another
     * package of the module, nor listed in {@code publicForOthers}: such a type can be package-private.
     *
     * @param classes the module's classes
     * @param exported the packages whose public types are the module's API
     * @param publicForOthers names of types that are public for code outside the module (another module's use, a
     *     main class), each with its reason in the caller
     */
    public static void assertPublicOnlyWhereNeeded(
            JavaClasses classes, Set<String> exported, Set<String> publicForOthers) {
        List<String> needless = classes.stream()
                .filter(c -> c.isTopLevelClass() && c.getModifiers().contains(JavaModifier.PUBLIC))
                .filter(c -> !c.getSimpleName().equals("package-info"))
                .filter(c -> !exported.contains(c.getPackageName()))
                .filter(c -> !publicForOthers.contains(c.getName()))
                .filter(c -> c.getDirectDependenciesToSelf().stream()
                        .noneMatch(d -> !d.getOriginClass().getPackageName().equals(c.getPackageName())))
                .map(JavaClass::getName)
                .sorted()
                .toList();
        if (!needless.isEmpty()) {
            throw new AssertionError("public, but in a package that is not exported and used by no other package of"
                    + " the module (make them package-private, or list them with the reason they are public): "
                    + needless);
        }
        for (String listed : publicForOthers) {
            if (classes.stream().noneMatch(c -> c.getName().equals(listed))) {
                throw new AssertionError("listed as public for others but not a class of the module: " + listed);
            }
        }
    }
}
