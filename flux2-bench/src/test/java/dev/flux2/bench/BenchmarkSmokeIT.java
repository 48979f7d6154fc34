package dev.flux2.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Runs every benchmark of the shaded {@code benchmarks.jar} once (1 fork, no warm-up, 1 short iteration) on the
 * tiny synthetic bundle and checks that each one produced a finite, positive score in the JSON results, so a
 * benchmark that no longer compiles, loads or runs fails {@code mvn verify}.
 */
class BenchmarkSmokeIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void everyBenchmarkRunsOnceOnTheSyntheticBundle() throws Exception {
        Path jar = Path.of(System.getProperty("flux2.bench.jar", "target/benchmarks.jar"));
        assertTrue(Files.isRegularFile(jar), "shaded jar missing: " + jar);
        Path results = Files.createTempFile("jmh-smoke", ".json");
        try {
            Set<String> listed = listBenchmarks(jar);
            assertFalse(listed.isEmpty(), "benchmarks.jar lists no benchmarks (annotation processing broken?)");

            List<String> command = new ArrayList<>(java(jar));
            command.addAll(List.of(
                    "-f",
                    "1",
                    "-wi",
                    "0",
                    "-i",
                    "1",
                    "-r",
                    "100ms",
                    "-w",
                    "100ms",
                    "-foe",
                    "true",
                    "-rf",
                    "json",
                    "-rff",
                    results.toString(),
                    "-jvmArgsAppend",
                    forkedJvmArgs()));
            command.addAll(SmokeParams.ARGUMENTS);
            String output = run(command, Long.getLong("flux2.bench.smoke.timeout", 600));

            JsonNode records = JSON.readTree(results.toFile());
            Map<String, Integer> seen = new TreeMap<>();
            for (JsonNode r : records) {
                String name = r.get("benchmark").asText();
                double score = r.get("primaryMetric").get("score").asDouble();
                assertTrue(Double.isFinite(score) && score > 0, name + " " + r.get("params") + " scored " + score);
                seen.merge(name, 1, Integer::sum);
            }
            assertEquals(listed, seen.keySet(), "benchmarks without a result; JMH output:\n" + tail(output));
        } finally {
            Files.deleteIfExists(results);
        }
    }

    private static Set<String> listBenchmarks(Path jar) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(java(jar));
        command.add("-l");
        Set<String> names = new TreeSet<>();
        for (String line : run(command, 120).split("\n")) {
            String name = line.trim();
            if (name.startsWith("dev.flux2.bench.")) {
                names.add(name);
            }
        }
        return names;
    }

    private static List<String> java(Path jar) {
        Path javaBin = Path.of(System.getProperty("java.home"), "bin", "java");
        // A smoke run measures nothing, so it need not wait for (or fail on) another JMH run's /tmp/jmh.lock.
        return List.of(javaBin.toString(), "-Xmx256m", "-Djmh.ignoreLock=true", "-jar", jar.toString());
    }

    private static String forkedJvmArgs() {
        return "-Xmx1g -Dai.djl.offline=true -DOPT_OUT_TRACKING=true -DRUST_FLAVOR=cpu";
    }

    private static String run(List<String> command, long timeoutSeconds) throws IOException, InterruptedException {
        Path log = Files.createTempFile("jmh-smoke", ".log");
        try {
            Process p = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("timed out after " + timeoutSeconds + " s: " + command + "\n"
                        + tail(Files.readString(log, StandardCharsets.UTF_8)));
            }
            String output = Files.readString(log, StandardCharsets.UTF_8);
            assertEquals(0, p.exitValue(), "exit code of " + command + "\n" + tail(output));
            return output;
        } finally {
            Files.deleteIfExists(log);
        }
    }

    private static String tail(String text) {
        return text.length() <= 8000 ? text : "…" + text.substring(text.length() - 8000);
    }
}
