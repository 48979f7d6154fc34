package dev.flux2.cli.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./flux2} launcher (issue #33): on JDK 17 and 18 the first run after a build stays the JVM's parent to
 * move the class-data archive into place, and must then pass a supervisor's signal on to the JVM and leave no
 * temporary archive. The launcher runs here on a copy of the repository's layout whose {@code flux2.jar} is
 * {@link Sleeper}, so that a run lasts until it is signalled; on JDK 19+ the launcher {@code exec}s java and the same
 * assertions hold trivially.
 */
@EnabledOnOs({OS.LINUX, OS.MAC})
class LauncherSignalsTest {
    @TempDir
    Path repo;

    private Path target;

    @BeforeEach
    void layout() throws IOException {
        Files.copy(Path.of("..", "flux2"), repo.resolve("flux2"));
        Files.setPosixFilePermissions(repo.resolve("flux2"), PosixFilePermissions.fromString("rwxr-xr-x"));
        target = Files.createDirectories(repo.resolve("flux2-cli").resolve("target"));
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, Sleeper.class.getName());
        String entry = Sleeper.class.getName().replace('.', '/') + ".class";
        try (OutputStream file = Files.newOutputStream(target.resolve("flux2.jar"));
                JarOutputStream jar = new JarOutputStream(file, manifest);
                InputStream bytes = Sleeper.class.getClassLoader().getResourceAsStream(entry)) {
            jar.putNextEntry(new JarEntry(entry));
            bytes.transferTo(jar);
            jar.closeEntry();
        }
    }

    @Test
    void termOfTheLauncherEndsTheJvmAndLeavesNoTemporaryArchive() throws Exception {
        Path pidFile = repo.resolve("jvm.pid");
        Process launcher = launch(pidFile, "sleep");
        long jvm = awaitPid(pidFile, launcher);

        launcher.destroy(); // SIGTERM to the launcher only, as `timeout` or a supervisor sends it

        assertTrue(launcher.waitFor(30, TimeUnit.SECONDS), "the launcher exits");
        ProcessHandle.of(jvm)
                .ifPresent(left -> left.onExit()
                        .completeOnTimeout(left, 30, TimeUnit.SECONDS)
                        .join());
        assertFalse(ProcessHandle.of(jvm).map(ProcessHandle::isAlive).orElse(false), "the JVM " + jvm + " still runs");
        assertEquals(143, launcher.exitValue(), "the JVM's own status for SIGTERM; log: " + log());
        assertEquals(List.of(), temporaryArchives(), "temporary archives left behind");
    }

    @Test
    void aCompleteRunStillMovesTheArchiveIntoPlaceAndStaleTemporaryArchivesAreRemoved() throws Exception {
        // A launcher killed with -9 leaves its temporary archive, named with a pid that no longer runs.
        Path stale = target.resolve("flux2-" + System.getProperty("java.version") + ".jsa.999999999.tmp");
        Files.writeString(stale, "partial");
        Path pidFile = repo.resolve("jvm.pid");
        Process launcher = launch(pidFile, "exit");

        assertTrue(launcher.waitFor(120, TimeUnit.SECONDS), "the launcher exits");
        assertEquals(0, launcher.exitValue(), "log: " + log());
        assertEquals(List.of(), temporaryArchives(), "temporary archives left behind");
        if (Runtime.version().feature() < 19) {
            try (Stream<Path> files = Files.list(target)) {
                assertEquals(
                        1,
                        files.filter(p -> p.getFileName().toString().endsWith(".jsa"))
                                .count(),
                        "the archive written at exit, moved into place");
            }
        }
    }

    private Process launch(Path pidFile, String mode) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(
                        List.of("bash", repo.resolve("flux2").toString(), pidFile.toString(), mode))
                .directory(repo.toFile())
                .redirectErrorStream(true)
                .redirectOutput(repo.resolve("launcher.log").toFile());
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().remove("FLUX2_CDS");
        pb.environment().remove("FLUX2_JAVA_OPTS");
        return pb.start();
    }

    private long awaitPid(Path pidFile, Process launcher) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!Files.exists(pidFile)) {
            assertTrue(launcher.isAlive(), "the launcher ended early; log: " + log());
            assertTrue(System.nanoTime() < deadline, "the JVM did not start within 60 s");
            Thread.sleep(50);
        }
        return Long.parseLong(Files.readString(pidFile).trim());
    }

    private String log() throws IOException {
        Path log = repo.resolve("launcher.log");
        return Files.exists(log) ? Files.readString(log) : "";
    }

    private List<String> temporaryArchives() throws IOException {
        try (Stream<Path> files = Files.list(target)) {
            return files.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".tmp"))
                    .toList();
        }
    }
}
