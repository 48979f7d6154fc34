package dev.flux2.onnx.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnx.proto.OnnxMl.NodeProto;
import ai.onnx.proto.OnnxMl.StringStringEntryProto;
import ai.onnx.proto.OnnxMl.TensorProto;
import dev.flux2.Flux2Pipeline;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.MemoryPolicy;
import dev.flux2.onnx.derived.DerivedGraphStore;
import dev.flux2.onnx.session.OpenSessionCounter;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import dev.flux2.testkit.SyntheticReference;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The backend option {@code cpu_tuned=true} on a synthetic bundle: the derived text encoder and transformer give the
 * same image as the bundle's own graphs and as the independent reference, they reference the original shards, and
 * they are reused and re-derived as their sources change.
 *
 * <p>Tolerance: the synthetic graphs already compute in fp32 with {@code accuracy_level} 0 between fp16 (or the
 * variant's) rounding points at their inputs and outputs; the tuned graph keeps those rounding points (its boundary
 * casts restore the declared element types), so it computes the same function in the same precision and only ONNX
 * Runtime's fusions and summation order may differ (fp32, ≈1e-7 relative). That is the situation
 * {@link ImageComparison} argues for against the double-precision reference: at most 1 LSB, rarely. (The accuracy
 * gain of fp32 over fp16 activations is checked on an fp16, level-4 graph in {@code DerivedGraphStoreTest}.)
 */
class CpuTunedPipelineTest {
    private static final String PROMPT = "a red fox in the snow";

    @TempDir
    static Path root;

    private static SyntheticBundle bundle;

    @BeforeAll
    static void writeBundle() {
        bundle = SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), root.resolve("bundle"));
    }

    private static BufferedImage generate(boolean tuned) {
        try (Flux2Pipeline p = Flux2Pipeline.builder()
                .model(bundle.directory())
                .memoryPolicy(MemoryPolicy.SEQUENTIAL)
                .backendOption("cpu_tuned", Boolean.toString(tuned))
                .build()) {
            return p.generate(GenerationRequest.builder(PROMPT)
                            .seed(42)
                            .size(64, 64)
                            .build())
                    .first()
                    .image();
        }
    }

    private static Set<String> derivedFiles() throws IOException {
        Path folder = bundle.directory().resolve(DerivedGraphStore.FOLDER);
        if (!Files.isDirectory(folder)) {
            return Set.of();
        }
        try (Stream<Path> s = Files.list(folder)) {
            return s.map(p -> p.getFileName().toString()).collect(Collectors.toCollection(TreeSet::new));
        }
    }

    @Test
    void tunedGraphsGiveTheUntunedImageAndTheReferences() throws IOException {
        int baseline = OpenSessionCounter.current();
        BufferedImage untuned = generate(false);
        BufferedImage tuned = generate(true);
        assertEquals(baseline, OpenSessionCounter.current());
        assertTrue(ImageComparison.maxDifference(untuned, tuned) <= ImageComparison.MAX_LSB);
        SyntheticReference ref = bundle.reference();
        float[] ctx = ExpectedImage.context(ref, bundle.tokenizerDirectory(), PROMPT);
        float[] x = ExpectedImage.noiseTokens(42, 4, 4);
        ExpectedImage.denoise(ref, x, ctx, ExpectedImage.Loop.textToImage(64, 64, 4));
        ImageComparison.assertMatches(tuned, ExpectedImage.decode(ref, x, 4, 4), "cpu-tuned 64x64");

        Set<String> files = derivedFiles();
        assertEquals(2, files.size(), files.toString());
        assertTrue(files.stream().allMatch(f -> f.endsWith(".onnx")), "fp32 scales already: no new data, " + files);
        for (String f : files) {
            checkReferencesOriginalShards(
                    bundle.directory().resolve(DerivedGraphStore.FOLDER).resolve(f));
        }
    }

    /** Every external location of the derived graph is one of the bundle's own files; every node is at level 0. */
    private static void checkReferencesOriginalShards(Path derived) throws IOException {
        ModelProto model;
        try (InputStream in = Files.newInputStream(derived)) {
            model = ModelProto.parseFrom(in);
        }
        List<String> bundleFiles;
        try (Stream<Path> s = Files.list(bundle.directory())) {
            bundleFiles = s.map(p -> p.getFileName().toString()).toList();
        }
        int external = 0;
        for (TensorProto t : model.getGraph().getInitializerList()) {
            if (t.getDataLocation() == TensorProto.DataLocation.EXTERNAL) {
                external++;
                String location = t.getExternalDataList().stream()
                        .filter(e -> e.getKey().equals("location"))
                        .map(StringStringEntryProto::getValue)
                        .findFirst()
                        .orElseThrow();
                assertTrue(bundleFiles.contains(location), derived + ": " + t.getName() + " -> " + location);
            }
        }
        assertTrue(external > 0, derived + " has external weights");
        for (NodeProto n : model.getGraph().getNodeList()) {
            n.getAttributeList().stream()
                    .filter(a -> a.getName().equals("accuracy_level"))
                    .forEach(a -> assertEquals(0, a.getI(), n.getName()));
        }
    }

    @Test
    void derivedGraphsAreReusedAndRederivedWhenTheSourceChanges() throws IOException {
        generate(true);
        Set<String> first = derivedFiles();
        Path transformer = bundle.directory()
                .resolve(DerivedGraphStore.FOLDER)
                .resolve(first.stream()
                        .filter(f -> f.startsWith("transformer-"))
                        .findFirst()
                        .orElseThrow());
        FileTime written = Files.getLastModifiedTime(transformer);
        generate(true);
        assertEquals(first, derivedFiles());
        assertEquals(written, Files.getLastModifiedTime(transformer), "reused");

        Path source = bundle.directory()
                .resolve(Files.list(bundle.directory())
                        .map(p -> p.getFileName().toString())
                        .filter(f -> f.contains("transformer") && f.endsWith(".onnx") && !f.contains("fused"))
                        .findFirst()
                        .orElseThrow());
        Files.setLastModifiedTime(
                source, FileTime.fromMillis(Files.getLastModifiedTime(source).toMillis() + 60_000));
        generate(true);
        Set<String> after = derivedFiles();
        assertEquals(2, after.size(), after.toString());
        assertNotEquals(first, after);
        assertFalse(Files.exists(transformer), "the stale derived transformer was deleted");
    }
}
