package dev.flux2.examples.embedding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.examples.JavaProcess;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The libraries as JPMS modules: a JVM with {@code --module-path} = the jars of flux2-core, flux2-tokenizer and
 * flux2-onnx and their run-time dependencies (failsafe's {@code flux2.module.path}, copied by the build),
 * {@code --add-modules dev.flux2.onnx}, and {@link MinimalExample} on the class path generates from a synthetic
 * bundle. That proves the {@code requires}, {@code uses} and {@code provides} directives complete: the backend is
 * found through the service binding, ONNX Runtime loads its natives, the tokenizer loads DJL's, the config is read
 * with Jackson, and the image equals the class-path run's. The module descriptors are checked for the boundary the
 * libraries draw: the API and SPI exported, the backend exporting only its typed options and its runtime package (the ONNX Runtime
 * library's install and choice) and the rest to the benchmarks only.
 */
class ModulePathIT {
    private static final String PROMPT = "a red fox in the snow";

    @TempDir
    static Path work;

    static SyntheticBundle bundle;

    @BeforeAll
    static void writeBundle() {
        bundle = SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), work.resolve("bundle"));
    }

    private static Path modulePath() throws IOException {
        Path dir = Path.of(System.getProperty("flux2.module.path", "target/module-path"));
        try (Stream<Path> jars = Files.list(dir)) {
            List<String> names = jars.map(p -> p.getFileName().toString()).toList();
            for (String lib : List.of("flux2-core", "flux2-tokenizer", "flux2-hub", "flux2-onnx")) {
                assertTrue(
                        names.stream().anyMatch(n -> n.startsWith(lib + "-")), lib + " on the module path: " + names);
            }
            assertFalse(
                    names.stream()
                            .anyMatch(n -> n.startsWith("picocli")
                                    || n.startsWith("flux2-examples")
                                    || n.startsWith("flux2-cli")
                                    || n.startsWith("flux2-server")
                                    || n.startsWith("flux2-spark")),
                    "only the libraries and their dependencies: " + names);
        }
        return dir;
    }

    /** The module path's jars and the examples' classes, as a class path. */
    private static String classPath() throws IOException {
        List<String> entries = new java.util.ArrayList<>();
        entries.add(System.getProperty("flux2.examples.classes", "target/classes"));
        try (Stream<Path> jars = Files.list(modulePath())) {
            jars.map(p -> p.toAbsolutePath().toString()).sorted().forEach(entries::add);
        }
        return String.join(java.io.File.pathSeparator, entries);
    }

    private static JavaProcess.Result java(String... args) throws IOException, InterruptedException {
        return JavaProcess.run(work, args);
    }

    @Test
    void minimalExampleGeneratesWithTheLibrariesOnTheModulePath() throws Exception {
        Path png = work.resolve("module-path.png");
        JavaProcess.Result r = java(
                "--module-path",
                modulePath().toString(),
                "--add-modules",
                "dev.flux2.onnx",
                "-cp",
                System.getProperty("flux2.examples.classes", "target/classes"),
                MinimalExample.class.getName(),
                bundle.directory().toString(),
                PROMPT,
                png.toString());
        assertEquals(0, r.exitCode(), r.toString());
        assertEquals("", r.err(), "no warning, no stack trace: " + r);
        BufferedImage image = ImageIO.read(png.toFile());
        assertEquals(512, image.getWidth());
        assertEquals(512, image.getHeight());

        // The same program on the class path draws the same pixels, and also prints nothing on stderr: no log
        // line, neither DJL's "Failed to detect GPU count" nor an SLF4J provider warning.
        Path classPathPng = work.resolve("class-path.png");
        JavaProcess.Result c = java(
                "-cp",
                classPath(),
                MinimalExample.class.getName(),
                bundle.directory().toString(),
                PROMPT,
                classPathPng.toString());
        assertEquals(0, c.exitCode(), c.toString());
        assertEquals("", c.err(), "MinimalExample writes nothing to stderr on success: " + c);
        BufferedImage expected = ImageIO.read(classPathPng.toFile());
        for (int y = 0; y < 512; y++) {
            for (int x = 0; x < 512; x++) {
                assertEquals(expected.getRGB(x, y), image.getRGB(x, y), "pixel " + x + "," + y);
            }
        }
    }

    @Test
    void theBackendExportsOnlyItsOptionsAndRuntimePackagesAndProvidesTheSpi() throws Exception {
        JavaProcess.Result r = java("--module-path", modulePath().toString(), "--describe-module", "dev.flux2.onnx");
        assertEquals(0, r.exitCode(), r.toString());
        List<String> lines = r.out().lines().map(String::strip).toList();
        assertTrue(
                lines.contains("provides dev.flux2.spi.Flux2BackendProvider with dev.flux2.onnx.OnnxBackendProvider"),
                r.out());
        assertTrue(lines.contains("exports dev.flux2.onnx.options"), "the typed options are public: " + r.out());
        assertFalse(
                lines.stream().anyMatch(l -> l.startsWith("requires dev.flux2.hub")),
                "the backend knows no hub (issue #28): " + r.out());
        for (String line : lines) {
            // The packages for applications: the typed options, and installing and choosing the ONNX Runtime
            // library (docs/gpu.md).
            assertFalse(
                    line.startsWith("exports ")
                            && !line.equals("exports dev.flux2.onnx.runtime")
                            && !line.equals("exports dev.flux2.onnx.options"),
                    "unqualified export: " + line);
            if (line.startsWith("qualified exports ")) {
                assertTrue(line.endsWith(" to dev.flux2.bench"), line);
            }
        }
    }

    @Test
    void theCoreExportsItsFacadeIoApiAndSpiOnly() throws Exception {
        JavaProcess.Result r = java("--module-path", modulePath().toString(), "--describe-module", "dev.flux2.core");
        assertEquals(0, r.exitCode(), r.toString());
        List<String> lines = r.out().lines().map(String::strip).toList();
        List<String> exports =
                lines.stream().filter(l -> l.startsWith("exports ")).sorted().toList();
        // The facade (Flux2Pipeline, issue #23), the applications' I/O helpers (issue #28), the API's values and the
        // SPI; nothing else.
        assertEquals(
                List.of("exports dev.flux2", "exports dev.flux2.api", "exports dev.flux2.io", "exports dev.flux2.spi"),
                exports,
                r.out());
        assertTrue(lines.contains("uses dev.flux2.spi.Flux2BackendProvider"), r.out());
        assertTrue(lines.contains("qualified exports dev.flux2.math to dev.flux2.bench"), r.out());
        assertTrue(
                lines.contains("contains dev.flux2.pipeline") && lines.contains("contains dev.flux2.image"),
                "the engine and the image code are in the module but not exported: " + r.out());
    }
}
