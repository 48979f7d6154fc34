package dev.flux2.tokenizer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tokenization needs no network, and the library itself keeps DJL offline.
 *
 * <p>Each test runs {@link OfflineProbe} in a fresh JVM, because DJL reads its settings once per JVM and surefire
 * already sets them for this one. The child gets none of DJL's settings (the environment variables
 * {@code DJL_OFFLINE}, {@code OPT_OUT_TRACKING}, {@code RUST_FLAVOR}, {@code ENGINE_CACHE_DIR} and
 * {@code RUST_LIBRARY_PATH} are removed, no {@code -D} is passed), so only {@link Qwen3PromptTokenizer}'s own
 * defaults can keep it offline, and an empty {@code DJL_CACHE_DIR}, so the native library must be extracted from
 * the jar rather than found in a cache.
 *
 * <ul>
 *   <li>{@link #noNetworkAttemptAndNativeLibraryFromTheJar}: the child's guards (see {@link OfflineProbe}) record
 *       every {@code http}/{@code https}/{@code ftp} URL opened, even with {@code Proxy.NO_PROXY}, and every socket
 *       connection that consults the proxy selector, and make each of them fail. The test fails if DJL tried any of
 *       them (telemetry, EC2 metadata, a library download), and such a connection could not have succeeded.</li>
 *   <li>{@link #theGuardSeesDjlTelemetryWhenTheUserTurnsItOn}: the control. With offline mode and opt-out
 *       explicitly turned off by the user, DJL calls the EC2 metadata endpoint, and the same guard records it. This
 *       proves the guard would catch DJL, and that user settings are not overridden.</li>
 *   <li>{@link #tokenizesInAnEmptyNetworkNamespace}: where {@code unshare -rn} works (Linux with unprivileged user
 *       namespaces), the child runs with no network interface at all, which also covers native code.</li>
 * </ul>
 */
class OfflineTokenizationTest {

    private static final String FOX = "a red fox in the snow";
    private static final List<String> DJL_ENVIRONMENT = List.of(
            "DJL_OFFLINE", "OPT_OUT_TRACKING", "RUST_FLAVOR", "ENGINE_CACHE_DIR", "RUST_LIBRARY_PATH", "DJL_CACHE_DIR");

    @TempDir
    Path temp;

    /** What the child printed, its exit code and its stderr. */
    private record Probe(int exitCode, Map<String, String> values, String stderr) {
        String value(String key) {
            return values.get(key);
        }

        String describe() {
            return "exit " + exitCode + ", stdout " + values + ", stderr:\n" + stderr;
        }
    }

    @Test
    void noNetworkAttemptAndNativeLibraryFromTheJar() throws Exception {
        Path cache = temp.resolve("djl-cache");
        Probe probe = runProbe(List.of(), List.of(), cache);

        assertEquals(0, probe.exitCode(), probe::describe);
        assertEquals("", probe.value("attempts"), () -> "DJL tried to reach the network: " + probe.describe());
        assertEquals(expectedFoxIds(), probe.value("ids"), probe::describe);
        assertEquals(Long.toString(Goldens.padTokenId()), probe.value("padId"));
        assertEquals("true", probe.value("ai.djl.offline"));
        assertEquals("true", probe.value("OPT_OUT_TRACKING"));
        assertEquals("cpu", probe.value("RUST_FLAVOR"));
        try (Stream<Path> files = Files.walk(cache)) {
            assertTrue(
                    files.anyMatch(f -> f.getFileName().toString().equals(System.mapLibraryName("tokenizers"))),
                    "native library should have been extracted into the empty cache " + cache);
        }
    }

    @Test
    void theGuardSeesDjlTelemetryWhenTheUserTurnsItOn() throws Exception {
        Probe probe = runProbe(
                List.of(), List.of("-Dai.djl.offline=false", "-DOPT_OUT_TRACKING=false"), temp.resolve("djl-cache"));

        assertEquals(0, probe.exitCode(), probe::describe);
        assertTrue(
                probe.value("attempts").contains("169.254.169.254"),
                () -> "the guard should have recorded DJL's EC2 metadata request: " + probe.describe());
        assertEquals("false", probe.value("ai.djl.offline"), "user setting must not be overridden");
        assertEquals("false", probe.value("OPT_OUT_TRACKING"), "user setting must not be overridden");
        assertEquals(expectedFoxIds(), probe.value("ids"), probe::describe);
    }

    @Test
    void tokenizesInAnEmptyNetworkNamespace() throws Exception {
        assumeTrue(unshareWorks(), "unshare -rn is not available here");
        Probe probe = runProbe(List.of("unshare", "-rn"), List.of(), temp.resolve("djl-cache"));

        assertEquals(0, probe.exitCode(), probe::describe);
        assertEquals("", probe.value("attempts"), probe::describe);
        assertEquals(expectedFoxIds(), probe.value("ids"), probe::describe);
    }

    private static String expectedFoxIds() {
        return Arrays.stream(Goldens.caseFor(FOX).inputIds())
                .mapToObj(Long::toString)
                .collect(Collectors.joining(","));
    }

    private Probe runProbe(List<String> wrapper, List<String> jvmOptions, Path djlCache) throws Exception {
        List<String> command = new ArrayList<>(wrapper);
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.add("-Djava.net.useSystemProxies=false");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(OfflineProbe.class.getName());
        command.add(Goldens.fixtureTokenizerDir().toString());
        command.add(FOX);

        Path stdout = temp.resolve("stdout.txt");
        Path stderr = temp.resolve("stderr.txt");
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectOutput(stdout.toFile()).redirectError(stderr.toFile());
        Map<String, String> environment = builder.environment();
        DJL_ENVIRONMENT.forEach(environment::remove);
        environment.put("DJL_CACHE_DIR", djlCache.toString());

        Process process = builder.start();
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("probe JVM did not finish within 120 s: " + command);
        }
        Map<String, String> values = new HashMap<>();
        for (String line : Files.readAllLines(stdout, StandardCharsets.UTF_8)) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                values.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        return new Probe(process.exitValue(), values, Files.readString(stderr, StandardCharsets.UTF_8));
    }

    private static boolean unshareWorks() throws IOException, InterruptedException {
        if (!System.getProperty("os.name").startsWith("Linux")) {
            return false;
        }
        Process process;
        try {
            process = new ProcessBuilder("unshare", "-rn", "true")
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
        } catch (IOException notInstalled) {
            return false;
        }
        return process.waitFor(30, TimeUnit.SECONDS) && process.exitValue() == 0;
    }
}
