package dev.flux2.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
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
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The architecture of flux2-core (issue #23), checked on its compiled main classes ({@code target/classes}): the
 * layers, no package cycle, no ONNX or hub name, and no public type in an internal package without a reason. Each
 * rule fails the build on a violation, naming the classes and the dependency or literal.
 *
 * <pre>
 *   dev.flux2            facade: Flux2Pipeline and its builder, Flux2Models, ImageFiles
 *   dev.flux2.io         the applications' file and encoding helpers (PNG files, encoded images, OpenAI's mask);
 *                        beside the facade, on the API only, used by no other package of the core
 *   dev.flux2.pipeline   engine (internal)
 *   dev.flux2.image      dev.flux2.math      image conversions, schedule and latent math (internal)
 *   dev.flux2.spi        backend SPI
 *   dev.flux2.api        plain values and exceptions; imports nothing above it
 * </pre>
 */
class CoreArchitectureTest {
    /** Where Maven puts this module's compiled main classes (the tests run in the module's folder). */
    static final Path MAIN_CLASSES = Path.of("target", "classes");

    /** Each layer may use only the layers below it. */
    static final ArchRule LAYERS = layeredArchitecture()
            .consideringOnlyDependenciesInLayers()
            .layer("facade")
            .definedBy("dev.flux2")
            .layer("io")
            .definedBy("dev.flux2.io..")
            .layer("engine")
            .definedBy("dev.flux2.pipeline..")
            .layer("image")
            .definedBy("dev.flux2.image..")
            .layer("math")
            .definedBy("dev.flux2.math..")
            .layer("spi")
            .definedBy("dev.flux2.spi..")
            .layer("api")
            .definedBy("dev.flux2.api..")
            .whereLayer("facade")
            .mayNotBeAccessedByAnyLayer()
            .whereLayer("io")
            .mayNotBeAccessedByAnyLayer()
            .whereLayer("io")
            .mayOnlyAccessLayers("api")
            .whereLayer("engine")
            .mayOnlyBeAccessedByLayers("facade")
            .whereLayer("image")
            .mayOnlyBeAccessedByLayers("facade", "engine")
            .whereLayer("math")
            .mayOnlyBeAccessedByLayers("engine")
            .whereLayer("spi")
            .mayOnlyBeAccessedByLayers("facade", "engine", "image", "math")
            .whereLayer("api")
            .mayNotAccessAnyLayer();

    /** Every package is a slice: no two packages may depend on each other, directly or through others. */
    static final ArchRule NO_PACKAGE_CYCLES =
            slices().assignedFrom(new ByPackage()).should().beFreeOfCycles();

    /** The core is backend-neutral and hub-neutral: the ONNX backend and the hub depend on it, never the reverse. */
    static final ArchRule NO_ONNX_OR_HUB_TYPES = noClasses()
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("ai.onnxruntime..", "dev.flux2.onnx..", "dev.flux2.hub..")
            .because("flux2-core knows no backend and no model hub (issue #23)");

    /**
     * What a hub name looks like in a literal: a repo id whose name says FLUX or klein ({@code owner/name}, as a
     * whole token), the hub's address, or the hub's environment variables.
     */
    static final Pattern HUB_NAME =
            Pattern.compile("(?<![\\w/.-])[A-Za-z0-9][\\w-]*/[\\w.-]*(?i:flux|klein)[\\w.-]*(?![\\w/])"
                    + "|(?i:huggingface\\.co|hf\\.co/)"
                    + "|\\bHF_(?:HUB_|HOME|TOKEN|ENDPOINT)");

    /** No string literal names a hub model, the hub's address or its settings. */
    static final ArchRule NO_HUB_NAMES_IN_LITERALS = classes().should(holdNoLiteralMatching(HUB_NAME));

    /**
     * The public types of packages the module does not export, each with the reason it must be public (a sibling
     * package of this module uses it). Everything else there is package-private. A package exported to named
     * modules only (the math, to the benchmarks) needs its used types public for that export.
     */
    static final Map<String, String> PUBLIC_INTERNALS = Map.ofEntries(
            Map.entry("dev.flux2.pipeline.GenerationEngine", "the facade's Flux2Pipeline runs requests on it"),
            Map.entry("dev.flux2.pipeline.BackendLocator", "the facade opens, checks and inspects models through it"),
            Map.entry("dev.flux2.pipeline.ModelLocator", "the facade resolves model references through it"),
            Map.entry("dev.flux2.image.JpegColors", "the facade's ImageFiles converts JPEG colours with it"),
            Map.entry(
                    "dev.flux2.image.ExifOrientation", "the facade's ImageFiles applies the EXIF orientation with it"),
            Map.entry(
                    "dev.flux2.image.ImageConversion", "the engine converts images to and from pixel tensors with it"),
            Map.entry("dev.flux2.image.ImagePreprocessor", "the engine resizes init and reference images with it"),
            Map.entry("dev.flux2.image.InpaintMask", "the engine binarizes inpainting masks with it"),
            Map.entry(
                    "dev.flux2.image.CropRegion", "the engine crops to the mask's region (padding_mask_crop) with it"),
            Map.entry("dev.flux2.image.MaskOverlay", "the engine pastes the crop back through the mask with it"),
            Map.entry(
                    "dev.flux2.image.LatentRgbProjection",
                    "the engine's live previews project latent tokens to RGB with it"),
            Map.entry(
                    "dev.flux2.image.LanczosResampler",
                    "the engine's InpaintingTest (dev.flux2.pipeline) computes its expected crop with it"));

    static JavaClasses core;
    static ModuleDescriptor module;

    @BeforeAll
    static void importMainClasses() throws IOException {
        assertTrue(
                Files.isDirectory(MAIN_CLASSES), "compiled main classes expected at " + MAIN_CLASSES.toAbsolutePath());
        core = new ClassFileImporter().importPath(MAIN_CLASSES);
        try (InputStream in = Files.newInputStream(MAIN_CLASSES.resolve("module-info.class"))) {
            module = ModuleDescriptor.read(in);
        }
    }

    @Test
    void layersDependOnlyDownwards() {
        LAYERS.check(core);
    }

    @Test
    void noPackageCycles() {
        NO_PACKAGE_CYCLES.check(core);
    }

    @Test
    void noOnnxOrHubTypes() {
        NO_ONNX_OR_HUB_TYPES.check(core);
    }

    @Test
    void noHubNamesInLiterals() {
        NO_HUB_NAMES_IN_LITERALS.check(core);
    }

    @Test
    void publicTypesOfInternalPackagesHaveAReason() {
        publicTypesOfInternalPackages(module, PUBLIC_INTERNALS).check(core);
    }

    @Test
    void theAllowListHasNoStaleEntry() {
        Set<String> publicInternals = core.stream()
                .filter(c -> c.getModifiers().contains(JavaModifier.PUBLIC) && c.isTopLevelClass())
                .filter(c -> !exported(module).contains(c.getPackageName()))
                .map(JavaClass::getName)
                .collect(Collectors.toCollection(TreeSet::new));
        for (String allowed : PUBLIC_INTERNALS.keySet()) {
            assertTrue(
                    publicInternals.contains(allowed),
                    allowed + " is allow-listed but is not a public type of an"
                            + " internal package any more: remove it from PUBLIC_INTERNALS");
        }
    }

    @Test
    void theModuleExportsTheFacadeTheIoHelpersTheApiAndTheSpi() {
        assertEquals(
                Set.of("dev.flux2", "dev.flux2.io", "dev.flux2.api", "dev.flux2.spi"),
                module.exports().stream()
                        .filter(e -> !e.isQualified())
                        .map(ModuleDescriptor.Exports::source)
                        .collect(Collectors.toSet()));
    }

    /** Packages every module may read (qualified exports count: their public types are public for that export). */
    static Set<String> exported(ModuleDescriptor module) {
        return module.exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet());
    }

    static ArchRule publicTypesOfInternalPackages(ModuleDescriptor module, Map<String, String> allowed) {
        Set<String> exported = exported(module);
        return classes()
                .that()
                .arePublic()
                .and()
                .areTopLevelClasses()
                .should(new ArchCondition<JavaClass>("be in an exported package, or be allow-listed with a reason") {
                    @Override
                    public void check(JavaClass c, ConditionEvents events) {
                        boolean ok = exported.contains(c.getPackageName()) || allowed.containsKey(c.getName());
                        events.add(new SimpleConditionEvent(
                                c,
                                ok,
                                c.getName() + " is public in " + c.getPackageName() + ", which module " + module.name()
                                        + " does not export: make it package-private, or allow-list it with the"
                                        + " reason it must be public"));
                    }
                });
    }

    static ArchCondition<JavaClass> holdNoLiteralMatching(Pattern pattern) {
        return new ArchCondition<>("hold no string literal matching " + pattern) {
            @Override
            public void check(JavaClass c, ConditionEvents events) {
                List<String> literals =
                        c.getSource().map(s -> ClassFileStrings.of(s.getUri())).orElse(List.of());
                for (String literal : literals) {
                    if (pattern.matcher(literal).find()) {
                        events.add(SimpleConditionEvent.violated(
                                c, c.getName() + " holds the literal \"" + literal + "\", a hub name"));
                    }
                }
            }
        };
    }

    /** One slice per package. */
    static final class ByPackage implements SliceAssignment {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
            return SliceIdentifier.of(javaClass.getPackageName());
        }

        @Override
        public String getDescription() {
            return "packages";
        }
    }
}
