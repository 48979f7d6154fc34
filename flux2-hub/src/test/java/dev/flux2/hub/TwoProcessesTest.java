package dev.flux2.hub;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.testkit.FakeHub;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two JVMs resolve the same model into one cache at once: file locks between processes, one valid copy. */
class TwoProcessesTest {
    @TempDir
    Path tmp;

    @Test
    void twoProcessesEndWithOneValidCopyAndFetchEachFileOnce() throws Exception {
        Path origin = TinyRepo.write(tmp.resolve("origin"));
        Path cache = tmp.resolve("cache");
        try (FakeHub hub = new FakeHub().publish(TinyRepo.REPO, TinyRepo.COMMIT, origin)) {
            // A slow shard keeps the first process inside its lock while the second waits for it.
            hub.inject(TinyRepo.SHARD, FakeHub.Fault.STALL, 0);
            List<Process> processes = new ArrayList<>();
            List<Path> outputs = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                Path out = tmp.resolve("out" + i + ".txt");
                outputs.add(out);
                processes.add(new ProcessBuilder(
                                Path.of(System.getProperty("java.home"), "bin", "java")
                                        .toString(),
                                "-cp",
                                System.getProperty("java.class.path"),
                                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                                ResolveMain.class.getName(),
                                hub.endpoint().toString(),
                                cache.toString(),
                                TinyRepo.REPO)
                        .redirectErrorStream(true)
                        .redirectOutput(out.toFile())
                        .start());
            }
            int fetched = 0;
            Pattern p = Pattern.compile("fetched=(\\d+)");
            for (int i = 0; i < 2; i++) {
                assertTrue(processes.get(i).waitFor(120, TimeUnit.SECONDS), "process " + i + " finished");
                String out = Files.readString(outputs.get(i), StandardCharsets.UTF_8);
                assertEquals(0, processes.get(i).exitValue(), out);
                Matcher m = p.matcher(out);
                assertTrue(m.find(), out);
                fetched += Integer.parseInt(m.group(1));
            }
            assertEquals(TinyRepo.FILES.size(), fetched, "each file fetched by one process");
            Path snapshot = cache.resolve("models--tester--tiny-bundle/snapshots/" + TinyRepo.COMMIT);
            for (String f : TinyRepo.FILES) {
                assertArrayEquals(Files.readAllBytes(origin.resolve(f)), Files.readAllBytes(snapshot.resolve(f)), f);
            }
        }
    }
}
