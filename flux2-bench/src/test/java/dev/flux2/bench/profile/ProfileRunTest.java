package dev.flux2.bench.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flux2.api.MemoryPolicy;
import dev.flux2.api.Stage;
import dev.flux2.testkit.BundleGraph;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The profile's measurement and report on a miniature synthetic bundle. */
class ProfileRunTest {
    @TempDir
    static Path bundle;

    @BeforeAll
    static void writeBundle() {
        SyntheticBundleWriter.write(
                SyntheticBundleSpec.builder().transformerPaddingBytes(1 << 20).build(), bundle);
    }

    @Test
    void samplesHoldEveryStageTheRuntimeShareAndMemory() {
        ProfileOptions options = ProfileOptions.parse(new String[] {
            "--bundle", bundle.toString(), "--size", "64", "--generations", "2", "--policy", "resident"
        });
        ProfileRun.Result run = ProfileRun.run(bundle, MemoryPolicy.RESIDENT, options);
        assertEquals(2, run.samples().size());
        for (GenerationSample s : run.samples()) {
            for (Stage stage : new Stage[] {Stage.TOKENIZE, Stage.TEXT_ENCODE, Stage.DENOISE, Stage.VAE_DECODE}) {
                assertTrue(s.timings().perStage().containsKey(stage), stage + " missing");
            }
            long total = s.timings().total().toNanos();
            long runtime = s.timings().runtime().toNanos();
            assertTrue(runtime > 0 && runtime <= total, "runtime " + runtime + " total " + total);
            assertEquals(total - runtime, s.overheadNanos());
            assertEquals(100.0 * (total - runtime) / total, s.overheadPercent(), 1e-9);
            assertTrue(s.wallNanos() >= total, "caller wall time below the pipeline's total");
            assertTrue(s.rssBytes() > 0 && s.peakRssBytes() >= s.rssBytes());
            assertEquals(
                    s.overheadNanos()
                            - s.sessionNanos().create()
                            - s.sessionNanos().close(),
                    s.javaNanos());
        }
        // RESIDENT: the first generation creates every session, the second reuses them all.
        assertTrue(run.samples().get(0).sessionNanos().create() > 0, "generation 1 created no session");
        assertEquals(0, run.samples().get(1).sessionNanos().create(), "generation 2 created a resident session");
        assertEquals(0, run.samples().get(1).sessionNanos().close(), "generation 2 closed a resident session");
    }

    @Test
    void reportPrintsTheTargetsAndWritesJson(@TempDir Path out) throws Exception {
        ProfileOptions options =
                ProfileOptions.parse(new String[] {"--mode", "memory", "--bundle", bundle.toString(), "--size", "64"});
        ProfileRun.Result run = ProfileRun.run(bundle, MemoryPolicy.SEQUENTIAL, options);
        BundleWeights weights = BundleWeights.of(bundle);
        SessionOpenCost sessions = SessionOpenCost.measure(bundle, 0);
        assertEquals(
                List.of(
                        "text_encoder",
                        "transformer",
                        "vae_decoder_pre",
                        "vae_decoder_attn_chunk",
                        "vae_decoder_post_stage_0",
                        "vae_decoder_post_stage_1",
                        "vae_decoder_post_stage_2",
                        "vae_decoder_post_stage_3"),
                List.copyOf(sessions.nanosByGraph().keySet()));
        assertTrue(sessions.nanosByGraph().values().stream().allMatch(n -> n > 0));
        ProfileReport report = new ProfileReport(
                options, MemoryPolicy.SEQUENTIAL, "synthetic", run, weights, MachineInfo.current(), sessions);
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        report.print(new PrintStream(text, true, StandardCharsets.UTF_8));
        String printed = text.toString(StandardCharsets.UTF_8);
        assertTrue(printed.contains("SEQUENTIAL peak RSS"), printed);
        assertTrue(printed.contains("generations 2..2"), printed);
        assertTrue(printed.contains("of which session create/close"), printed);
        // SEQUENTIAL on a miniature: every graph fits kept beside the others within the SEQUENTIAL bound, so the
        // first generation creates its sessions and closes none, and the second creates and closes nothing.
        GenerationSample first = run.samples().get(0);
        GenerationSample second = run.samples().get(1);
        assertTrue(first.sessionNanos().create() > 0, "generation 1 created no session");
        assertEquals(0, first.sessionNanos().close(), "generation 1 closed a session it could keep");
        assertEquals(0, second.sessionNanos().create(), "generation 2 created a session");
        assertEquals(0, second.sessionNanos().close(), "generation 2 closed a session");

        Path json = out.resolve("memory.json");
        report.writeJson(json);
        JsonNode root = new ObjectMapper().readTree(json.toFile());
        assertEquals(2, root.get("samples").size());
        JsonNode secondJson = root.get("samples").get(1);
        assertEquals(
                secondJson.get("overheadMs").asDouble()
                        - secondJson.get("sessionCreateMs").asDouble()
                        - secondJson.get("sessionCloseMs").asDouble(),
                secondJson.get("javaMs").asDouble(),
                1e-3);
        assertEquals("transformer", root.get("largestGraph").asText());
        long expectedBound = (long) (1.3 * weights.largest().getValue()) + (300L << 20);
        assertEquals(expectedBound, root.get("memoryBoundBytes").asLong());
        assertEquals(
                sessions.totalNanos() / 1e6, root.get("sessionCreateTotalMs").asDouble(), 1e-6);
    }

    @Test
    void stageWeightsAreTheGraphFilePlusItsShards() throws Exception {
        BundleWeights weights = BundleWeights.of(bundle);
        Map<String, Long> bytes = weights.bytesByGraph();
        long transformer = Files.size(bundle.resolve(BundleGraph.TRANSFORMER.fileName()));
        for (String shard : BundleGraph.TRANSFORMER.shardNames()) {
            transformer += Files.size(bundle.resolve(shard));
        }
        assertEquals(transformer, bytes.get("transformer"));
        assertTrue(transformer > 1 << 20, "the 1 MiB padding is in the transformer shards");
        assertEquals(Files.size(bundle.resolve(BundleGraph.VAE_DECODER_PRE.fileName())), bytes.get("vae_decoder_pre"));
        assertEquals("transformer", weights.largest().getKey());
    }

    @Test
    void procStatusReadsThisProcess() {
        long rss = ProcStatus.rssBytes();
        assertTrue(rss > 1 << 20, "VmRSS " + rss);
        assertTrue(ProcStatus.peakRssBytes() >= rss);
    }
}
