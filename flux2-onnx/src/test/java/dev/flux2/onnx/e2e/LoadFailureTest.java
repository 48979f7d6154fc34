package dev.flux2.onnx.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flux2.Flux2Models;
import dev.flux2.Flux2Pipeline;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.api.ModelLoadException;
import dev.flux2.api.ModelSummary;
import dev.flux2.onnx.session.OpenSessionCounter;
import dev.flux2.testkit.FusedConvention;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import dev.flux2.testkit.TensorElementType;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every way a bundle can be broken fails {@code build()} with a {@link ModelLoadException} that names the file or
 * graph and what was expected, before any generation, and opens no session.
 */
class LoadFailureTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @TempDir
    static Path root;

    private static SyntheticBundle bundle;
    private int sessionsBefore;

    @BeforeAll
    static void writeBundle() {
        bundle = SyntheticBundleWriter.write(
                SyntheticBundleSpec.builder().fused(FusedConvention.ENGINE).build(), root.resolve("bundle"));
    }

    @BeforeEach
    void countSessions() {
        sessionsBefore = OpenSessionCounter.current();
    }

    @AfterEach
    void noSessionLeaked() {
        assertEquals(sessionsBefore, OpenSessionCounter.current(), "a failed build must not leave sessions open");
    }

    private static String buildFailure(Path dir) {
        return assertThrows(
                        ModelLoadException.class,
                        () -> Flux2Pipeline.builder().model(dir).build().close())
                .getMessage();
    }

    /** Moves a file away, checks the failure, puts it back. */
    private static String withoutFile(Path file) throws IOException {
        Path aside = file.resolveSibling(file.getFileName() + ".aside");
        Files.move(file, aside);
        try {
            return buildFailure(bundle.directory());
        } finally {
            Files.move(aside, file, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    @Test
    void intactBundleBuilds() {
        Flux2Pipeline.builder().model(bundle.directory()).build().close();
    }

    @Test
    void missingConfig() throws IOException {
        String msg = withoutFile(bundle.configFile());
        assertTrue(msg.contains("flux2-config.json"), msg);
        Path aside = bundle.configFile().resolveSibling("config.aside");
        Files.move(bundle.configFile(), aside);
        try {
            msg = assertThrows(
                            ModelLoadException.class,
                            () -> Flux2Pipeline.builder()
                                    .model(bundle.directory())
                                    .backend("onnx")
                                    .build())
                    .getMessage();
            // Without its config the folder is read by its graphs' signatures, which cannot order a split decoder.
            assertTrue(
                    msg.contains("split VAE decoder")
                            && msg.contains("flux2-config.json")
                            && msg.contains(bundle.directory().toString())
                            && msg.contains("flux2-klein-4b-vae-decoder-pre-attn-fp16.onnx"),
                    msg);
        } finally {
            Files.move(aside, bundle.configFile());
        }
    }

    @Test
    void eachMissingRequiredGraphIsNamed() throws IOException {
        List<String> keys =
                new ArrayList<>(List.of("text_encoder", "transformer", "vae_decoder_pre", "vae_decoder_attn_chunk"));
        for (int i = 0; i < 4; i++) {
            keys.add("vae_decoder_post_stage_" + i);
        }
        for (String key : keys) {
            Path file = bundle.graphFile(key);
            String msg = withoutFile(file);
            assertTrue(
                    msg.contains(file.getFileName().toString())
                            && msg.contains("models." + key + ".file")
                            && msg.contains("missing"),
                    key + ": " + msg);
        }
    }

    /**
     * The pinned q4 revision names no graph it lacks, but a revision may name a fused denoiser or a VAE encoder
     * without shipping it (flux2 download reports them as absent): the bundle then works without them.
     */
    @Test
    void optionalGraphsTheFolderLacksAreLeftOut() throws IOException {
        List<Path> optional = List.of(bundle.graphFile("transformer_fused_4step"), bundle.graphFile("vae_encoder"));
        for (Path file : optional) {
            Files.move(file, file.resolveSibling(file.getFileName() + ".aside"));
        }
        try {
            try (Flux2Pipeline pipeline =
                    Flux2Pipeline.builder().model(bundle.directory()).build()) {
                assertEquals(0, pipeline.modelInfo().fusedSteps());
                assertFalse(pipeline.modelInfo().supportsImageInput());
                GenerationResult result = pipeline.generate(
                        GenerationRequest.builder("a fox").size(64, 64).seed(3).build());
                assertFalse(result.first().metadata().fused());
                assertEquals(4, result.first().metadata().stepsRun());
                BufferedImage init = new BufferedImage(64, 64, BufferedImage.TYPE_INT_RGB);
                String msg = assertThrows(
                                InvalidRequestException.class,
                                () -> pipeline.generate(GenerationRequest.builder("a fox")
                                        .initImage(init)
                                        .build()))
                        .getMessage();
                assertTrue(msg.contains("no VAE encoder"), msg);
            }
            ModelSummary summary = Flux2Models.inspect(bundle.directory());
            assertTrue(
                    summary.files().stream().allMatch(ModelSummary.FileEntry::ok),
                    summary.files().toString());
            assertEquals(
                    "transformer_fused_4step (" + optional.get(0).getFileName() + "), vae_encoder ("
                            + optional.get(1).getFileName() + ")",
                    summary.details().get("absent_optional_graphs"));
            assertEquals("none", summary.details().get("problems"));
            assertEquals("none", summary.details().get("fused_denoiser_convention"));
            for (Path file : optional) {
                ModelSummary.FileEntry entry = summary.files().stream()
                        .filter(f -> f.path().equals(file.getFileName().toString()))
                        .findFirst()
                        .orElseThrow(() -> new AssertionError(file + " listed: " + summary.files()));
                assertTrue(entry.optional() && !entry.present() && entry.ok(), entry.toString());
            }
        } finally {
            for (Path file : optional) {
                Files.move(file.resolveSibling(file.getFileName() + ".aside"), file);
            }
        }
    }

    @Test
    void missingManifestAndShardAreNamed() throws IOException {
        Path manifest = bundle.manifestFile("transformer").orElseThrow();
        String msg = withoutFile(manifest);
        assertTrue(msg.contains("manifest " + manifest.getFileName()) && msg.contains("missing"), msg);
        for (Path shard : bundle.shardFiles("text_encoder")) {
            msg = withoutFile(shard);
            assertTrue(msg.contains("shard " + shard.getFileName()) && msg.contains("missing"), msg);
        }
    }

    @Test
    void eachMissingTokenizerFileIsNamed() throws IOException {
        for (String name : List.of("tokenizer.json", "tokenizer_config.json")) {
            String msg = withoutFile(bundle.tokenizerDirectory().resolve(name));
            assertTrue(msg.contains("tokenizer/" + name) && msg.contains("missing"), msg);
        }
    }

    @Test
    void truncatedShardReportsExpectedAndActualSize() throws IOException {
        Path shard = bundle.shardFiles("transformer").get(0);
        byte[] original = Files.readAllBytes(shard);
        try (RandomAccessFile f = new RandomAccessFile(shard.toFile(), "rw")) {
            f.setLength(original.length - 100);
        }
        try {
            String msg = buildFailure(bundle.directory());
            assertTrue(
                    msg.contains("shard " + shard.getFileName() + " is " + (original.length - 100) + " bytes, expected "
                            + original.length),
                    msg);
        } finally {
            Files.write(shard, original);
        }
    }

    @Test
    void wrongInputNameNamesGraphTensorExpectedAndFound(@TempDir Path dir) {
        SyntheticBundleWriter.write(
                SyntheticBundleSpec.builder()
                        .renameInput("transformer", "x", "x_in")
                        .build(),
                dir);
        String msg = buildFailure(dir);
        assertTrue(msg.contains("graph transformer") && msg.contains("'x'") && msg.contains("x_in"), msg);
    }

    @Test
    void wrongDtypeNamesGraphTensorExpectedAndFound(@TempDir Path dir) {
        SyntheticBundleWriter.write(
                SyntheticBundleSpec.builder()
                        .inputElementType("vae_decoder_pre", "z", TensorElementType.INT8)
                        .build(),
                dir);
        String msg = buildFailure(dir);
        assertTrue(
                msg.contains("graph vae_decoder_pre")
                        && msg.contains("'z'")
                        && msg.contains("must be BFLOAT16 or DOUBLE or FLOAT or FLOAT16 of rank 4")
                        && msg.contains("found INT8"),
                msg);
    }

    private static String withConfig(Consumer<ObjectNode> edit) throws IOException {
        Path config = bundle.configFile();
        byte[] original = Files.readAllBytes(config);
        ObjectNode node = (ObjectNode) MAPPER.readTree(original);
        edit.accept(node);
        MAPPER.writeValue(config.toFile(), node);
        try {
            return buildFailure(bundle.directory());
        } finally {
            Files.write(config, original);
        }
    }

    @Test
    void badConfigFieldsAreNamed() throws IOException {
        String msg = withConfig(n -> n.put("text_seq_len", "abc"));
        assertTrue(msg.contains("'text_seq_len'") && msg.contains("\"abc\""), msg);
        msg = withConfig(n -> ((ObjectNode) n.get("models")).remove("transformer"));
        assertTrue(msg.contains("'models.transformer'") && msg.contains("missing"), msg);
        // The graphs fix context_dim (32), so a config that disagrees is caught from the graph headers.
        msg = withConfig(n -> n.put("context_dim", 16));
        assertTrue(
                msg.contains("graph text_encoder")
                        && msg.contains("'ctx'")
                        && msg.contains("[1, 64, 16]")
                        && msg.contains("32]"),
                msg);
    }

    @Test
    void unknownOptionListsTheKnownOnes() {
        String msg = assertThrows(
                        InvalidRequestException.class,
                        () -> Flux2Pipeline.builder()
                                .model(bundle.directory())
                                .backendOption("graph_opt", "all")
                                .build())
                .getMessage();
        assertTrue(msg.contains("'graph_opt'") && msg.contains("graph_optimization_level"), msg);
    }

    @Test
    void gandamuBundleIsReportedAsUnsupported(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("manifest.json"), "{\"tensors\": []}");
        Files.write(dir.resolve("shard_000.bin"), new byte[16]);
        String msg = buildFailure(dir);
        assertTrue(msg.contains("unsupported format") && msg.contains("gandamu"), msg);
    }

    /** Runs {@code body} with the config edited, then restores it. */
    private static <T> T withEditedConfig(Consumer<ObjectNode> edit, java.util.function.Supplier<T> body)
            throws IOException {
        Path config = bundle.configFile();
        byte[] original = Files.readAllBytes(config);
        ObjectNode node = (ObjectNode) MAPPER.readTree(original);
        edit.accept(node);
        MAPPER.writeValue(config.toFile(), node);
        try {
            return body.get();
        } finally {
            Files.write(config, original);
        }
    }

    @Test
    void withoutAManifestShardsAreCheckedFromTheGraphItself() throws IOException {
        Consumer<ObjectNode> noManifest = n -> ((ObjectNode) n.get("models").get("text_encoder")).remove("manifest");
        Path shard = bundle.shardFiles("text_encoder").get(1);
        String msg = withEditedConfig(noManifest, () -> {
            try {
                return withoutFile(shard);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        assertTrue(
                msg.contains("graph text_encoder")
                        && msg.contains(shard.getFileName().toString())
                        && msg.contains("missing"),
                msg);
        byte[] original = Files.readAllBytes(shard);
        try (RandomAccessFile f = new RandomAccessFile(shard.toFile(), "rw")) {
            f.setLength(original.length - 64);
        }
        try {
            msg = withEditedConfig(noManifest, () -> buildFailure(bundle.directory()));
            assertTrue(
                    msg.contains("shard " + shard.getFileName() + " is " + (original.length - 64) + " bytes")
                            && msg.contains("graph text_encoder")
                            && msg.contains("reads up to byte " + original.length),
                    msg);
        } finally {
            Files.write(shard, original);
        }
    }

    @Test
    void unusedModelEntriesAreNeitherValidatedNorRead() throws IOException {
        withEditedConfig(
                n -> {
                    ObjectNode models = (ObjectNode) n.get("models");
                    models.putObject("transformer_custom_lowbit")
                            .put("file", "custom/missing.bin")
                            .put("manifest", "custom/manifest.json");
                    models.putObject("runtime_notes").put("text", "no file at all");
                },
                () -> {
                    Flux2Pipeline.builder().model(bundle.directory()).build().close();
                    return null;
                });
    }

    @Test
    void aConfigWithoutAnyVaeDecoderNamesWhatIsMissing() throws IOException {
        String msg = withConfig(n -> {
            ObjectNode models = (ObjectNode) n.get("models");
            models.remove("vae_decoder_attn_chunk");
        });
        assertTrue(
                msg.contains("no complete VAE decoder")
                        && msg.contains("models.vae_decoder_attn_chunk")
                        && msg.contains("flux2-config.json"),
                msg);
    }
}
