package dev.flux2.onnx.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.Flux2Models;
import dev.flux2.Flux2Pipeline;
import dev.flux2.api.ModelLoadException;
import dev.flux2.api.ModelRole;
import dev.flux2.api.ModelSummary;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Folders and compositions that do not make a model: each is one {@link ModelLoadException}, raised before any
 * weight is loaded, naming the files, the graphs found with their inputs, and what is expected.
 */
class LayoutFailureTest {
    @TempDir
    static Path root;

    private static SyntheticBundle hlhc;
    private static SyntheticBundle markshark;
    private static SyntheticBundle wideContext;

    @BeforeAll
    static void writeBundles() {
        hlhc = SyntheticBundleWriter.write(
                SyntheticBundleSpec.builder().hlhcLayout().build(), root.resolve("hlhc"));
        markshark = SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), root.resolve("markshark2"));
        wideContext = SyntheticBundleWriter.write(
                SyntheticBundleSpec.builder().hlhcLayout().contextDim(48).build(), root.resolve("hlhc-wide"));
    }

    /** @return a copy of the hlhc bundle to break */
    private static Path copy(Path target) throws IOException {
        Path source = hlhc.directory();
        try (Stream<Path> files = Files.walk(source)) {
            for (Path p : files.sorted(Comparator.naturalOrder()).toList()) {
                Path t = target.resolve(source.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(p, t, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        return target;
    }

    private static String failure(Flux2Pipeline.Builder builder) {
        return assertThrows(ModelLoadException.class, builder::build).getMessage();
    }

    @Test
    void aMissingRoleListsTheGraphsFoundWithTheirInputs(@TempDir Path dir) throws IOException {
        Path folder = copy(dir.resolve("no-decoder"));
        Files.delete(folder.resolve("vae_decoder.onnx"));
        String msg = failure(Flux2Pipeline.builder().model(folder));
        assertTrue(msg.contains("no VAE decoder graph"), msg);
        assertTrue(msg.contains("transformer.onnx (denoiser, hlhc)"), msg);
        assertTrue(msg.contains("hidden_states FLOAT [1, image_seq, 128]"), msg);
        assertTrue(msg.contains("vae_encoder.onnx (VAE encoder, hlhc)"), msg);
        ModelSummary s = Flux2Models.inspect(folder);
        assertTrue(
                s.details().get("problems").contains("no VAE decoder graph"),
                s.details().toString());
        assertEquals("false", s.details().get("parts_complete"));
        assertTrue(
                s.graphs().stream().anyMatch(g -> g.role().equals("denoiser (hlhc)")),
                s.graphs().toString());
    }

    @Test
    void twoGraphsClaimingOneRoleAreNamedAndAComponentSettlesIt(@TempDir Path dir) throws IOException {
        Path folder = copy(dir.resolve("two-transformers"));
        Files.copy(folder.resolve("transformer.onnx"), folder.resolve("transformer_int4.onnx"));
        String msg = failure(Flux2Pipeline.builder().model(folder));
        assertTrue(msg.contains("2 graphs claim the denoiser role"), msg);
        assertTrue(msg.contains(folder.resolve("transformer.onnx").toString()), msg);
        assertTrue(msg.contains(folder.resolve("transformer_int4.onnx").toString()), msg);
        assertTrue(msg.contains("--component denoiser=FILE"), msg);
        Flux2Pipeline.builder()
                .model(folder)
                .component(ModelRole.DENOISER, folder.resolve("transformer_int4.onnx"))
                .build()
                .close();
    }

    @Test
    void aContextWidthThatDoesNotFitNamesBothGraphs() {
        String msg = failure(Flux2Pipeline.builder()
                .model(markshark.directory())
                .component(ModelRole.DENOISER, wideContext.graphFile("transformer")));
        assertTrue(msg.contains("do not fit"), msg);
        assertTrue(msg.contains("width 32") && msg.contains("width 48"), msg);
        assertTrue(msg.contains(markshark.graphFile("text_encoder").toString()), msg);
        assertTrue(msg.contains(wideContext.graphFile("transformer").toString()), msg);
        assertTrue(msg.contains("encoder_hidden_states"), msg);
    }

    @Test
    void aComponentOfUnknownSignatureOrOfAnotherRoleIsRefused() {
        String unknown = failure(Flux2Pipeline.builder()
                .model(markshark.directory())
                .component(ModelRole.DENOISER, markshark.graphFile("vae_decoder_attn_chunk")));
        assertTrue(unknown.contains("component denoiser"), unknown);
        assertTrue(unknown.contains("matches no known signature"), unknown);
        assertTrue(unknown.contains("q_chunk"), unknown);
        String other = failure(Flux2Pipeline.builder()
                .model(markshark.directory())
                .component(ModelRole.DENOISER, hlhc.graphFile("text_encoder")));
        assertTrue(other.contains("is a text encoder graph, not a denoiser"), other);
        String missing = failure(Flux2Pipeline.builder()
                .model(markshark.directory())
                .component(ModelRole.VAE_DECODER, root.resolve("x")));
        assertTrue(missing.contains("component vae-decoder") && missing.contains("does not exist"), missing);
    }

    @Test
    void aFolderOfUnknownGraphsIsDescribedInTheError(@TempDir Path dir) throws IOException {
        Path folder = Files.createDirectories(dir.resolve("unknown"));
        Files.copy(markshark.graphFile("vae_decoder_attn_chunk"), folder.resolve("mystery.onnx"));
        String msg = failure(Flux2Pipeline.builder().model(folder));
        assertTrue(msg.contains("no text encoder graph"), msg);
        assertTrue(msg.contains("mystery.onnx (no known role"), msg);
        assertTrue(msg.contains("q_chunk FLOAT16"), msg);
    }

    @Test
    void aTruncatedDataFileIsNamedBeforeAnyWeightIsLoaded(@TempDir Path dir) throws IOException {
        Path folder = copy(dir.resolve("truncated"));
        Path data = folder.resolve("transformer.onnx.data");
        try (RandomAccessFile f = new RandomAccessFile(data.toFile(), "rw")) {
            f.setLength(f.length() - 100);
        }
        String msg = failure(Flux2Pipeline.builder().model(folder));
        assertTrue(msg.contains("transformer.onnx.data") && msg.contains("truncated"), msg);
        ModelSummary s = Flux2Models.inspect(folder);
        ModelSummary.FileEntry entry = s.files().stream()
                .filter(f -> f.path().equals("transformer.onnx.data"))
                .findFirst()
                .orElseThrow();
        assertFalse(entry.ok(), entry.toString());
        Files.delete(data);
        msg = failure(Flux2Pipeline.builder().model(folder));
        assertTrue(msg.contains("transformer.onnx.data, which is missing"), msg);
    }

    @Test
    void aFolderWithoutTokenizerSaysWhereItLooked(@TempDir Path dir) throws IOException {
        Path folder = copy(dir.resolve("no-tokenizer"));
        try (Stream<Path> files = Files.walk(folder.resolve("tokenizer"))) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
        String msg = failure(Flux2Pipeline.builder().model(folder));
        assertTrue(msg.contains("no tokenizer") && msg.contains("tokenizer.json"), msg);
        Flux2Pipeline.builder()
                .model(folder)
                .component(ModelRole.TOKENIZER, hlhc.tokenizerDirectory().resolve("tokenizer.json"))
                .build()
                .close();
    }

    @Test
    void aMarkShark2ConfigNamingAGraphOfAnotherRoleIsRefused(@TempDir Path dir) throws IOException {
        Path folder = dir.resolve("swapped");
        Files.createDirectories(folder);
        try (Stream<Path> files = Files.list(markshark.directory())) {
            for (Path p : files.toList()) {
                if (Files.isRegularFile(p)) {
                    Files.copy(p, folder.resolve(p.getFileName()));
                }
            }
        }
        Files.createDirectories(folder.resolve("tokenizer"));
        try (Stream<Path> files = Files.list(markshark.tokenizerDirectory())) {
            for (Path p : files.toList()) {
                Files.copy(p, folder.resolve("tokenizer").resolve(p.getFileName()));
            }
        }
        // The config names the VAE encoder's file as the unified decoder.
        Path config = folder.resolve("flux2-config.json");
        String json = Files.readString(config)
                .replace(
                        "\"vae_decoder_pre\": {",
                        "\"vae_decoder\": {\"file\": \"flux2-klein-4b-vae-encoder-fp16.onnx\"},\n"
                                + "    \"vae_decoder_pre\": {");
        Files.writeString(config, json);
        String msg = failure(Flux2Pipeline.builder().model(folder));
        assertTrue(msg.contains("models.vae_decoder"), msg);
        assertTrue(msg.contains("its signature is a VAE encoder's, not a vae-decoder's"), msg);
    }
}
