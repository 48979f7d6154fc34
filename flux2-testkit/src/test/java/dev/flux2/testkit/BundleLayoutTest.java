package dev.flux2.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnx.proto.OnnxMl.AttributeProto;
import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnx.proto.OnnxMl.NodeProto;
import ai.onnx.proto.OnnxMl.OperatorSetIdProto;
import ai.onnx.proto.OnnxMl.StringStringEntryProto;
import ai.onnx.proto.OnnxMl.TensorProto;
import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.OnnxJavaType;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.TensorInfo;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Files, config, manifests, shards and graph signatures of written bundles. */
class BundleLayoutTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private static SyntheticBundleSpec fullSpec() {
        return SyntheticBundleSpec.builder().fused(FusedConvention.LISTED).build();
    }

    @Test
    void configHasTheRealConfigsKeysAtEveryLevel() throws IOException {
        SyntheticBundle bundle = SyntheticBundleWriter.write(fullSpec(), dir);
        JsonNode expected = SeedConfig.markShark2();
        JsonNode actual = JSON.readTree(bundle.configFile().toFile());
        assertSameKeys("$", expected, actual);
    }

    @Test
    void configValuesDescribeTheSpecAndTheFiles() throws IOException {
        SyntheticBundleSpec spec = SyntheticBundleSpec.builder()
                .textSequenceLength(40)
                .contextDim(24)
                .defaultSize(96, 48)
                .vaeChunkSize(100)
                .vaeHeadDim(6)
                .fused(FusedConvention.ENGINE)
                .distilled(false)
                .build();
        SyntheticBundle bundle = SyntheticBundleWriter.write(spec, dir);
        JsonNode c = JSON.readTree(bundle.configFile().toFile());
        assertEquals(40, c.get("text_seq_len").asInt());
        assertEquals(24, c.get("context_dim").asInt());
        assertEquals(128, c.get("latent_channels").asInt());
        assertEquals(16, c.get("latent_downsample").asInt());
        assertEquals(96, c.get("default_width").asInt());
        assertEquals(48, c.get("default_height").asInt());
        assertEquals(50, c.get("num_steps").asInt());
        assertEquals(4.0, c.get("guidance").asDouble());
        assertTrue(c.get("model_variant").asText().contains("base"));
        assertEquals("tokenizer", c.get("tokenizer_dir").asText());
        assertTrue(c.get("supports_img2img").asBoolean());
        assertEquals(
                List.of(
                        "vae_decoder_post_stage_0",
                        "vae_decoder_post_stage_1",
                        "vae_decoder_post_stage_2",
                        "vae_decoder_post_stage_3"),
                strings(c.get("vae_decoder_post_stage_keys")));
        JsonNode models = c.get("models");
        assertEquals(100, models.get("vae_decoder_attn_chunk").get("chunk_size").asInt());
        assertEquals(6, models.get("vae_decoder_attn_chunk").get("head_dim").asInt());
        assertEquals(4, models.get("transformer_fused_4step").get("fused_steps").asInt());
        for (BundleGraph g : spec.graphs()) {
            JsonNode m = models.get(g.key());
            assertEquals(g.fileName(), m.get("file").asText());
            assertTrue(Files.isRegularFile(bundle.graphFile(g.key())), g.fileName());
            assertEquals(spec.inputNames(g.key()), strings(m.get("inputs")), g.key());
            assertEquals(spec.outputNames(g.key()), strings(m.get("outputs")), g.key());
            JsonNode shards = m.get("shards");
            if (g.manifestName().isPresent()) {
                assertEquals(g.manifestName().get(), m.get("manifest").asText());
                assertEquals(2, shards.get("count").asInt());
                long s1 = Files.size(bundle.shardFiles(g.key()).get(0));
                long s2 = Files.size(bundle.shardFiles(g.key()).get(1));
                assertEquals(s1 + s2, shards.get("total_bytes").asLong(), g.key());
                assertEquals(Math.max(s1, s2), shards.get("largest_bytes").asLong(), g.key());
            } else {
                assertFalse(m.has("manifest"));
                assertEquals(0, shards.get("count").asInt());
                assertEquals(
                        Files.size(bundle.graphFile(g.key())),
                        shards.get("onnx_bytes").asLong(),
                        g.key());
            }
        }
        assertEquals(
                1,
                models.get("text_encoder")
                        .get("quantization")
                        .get("matmul_nbits_nodes")
                        .asInt());
        assertEquals(
                1,
                models.get("transformer")
                        .get("quantization")
                        .get("matmul_nbits_nodes")
                        .asInt());
        assertEquals(
                4,
                models.get("transformer_fused_4step")
                        .get("quantization")
                        .get("matmul_nbits_nodes")
                        .asInt());
        assertEquals(
                16,
                models.get("transformer").get("quantization").get("block_size").asInt());
        assertEquals(
                4, models.get("transformer").get("quantization").get("bits").asInt());
    }

    @Test
    void withoutEncoderOrFusedTheEntriesAreAbsent() throws IOException {
        SyntheticBundle bundle = SyntheticBundleWriter.write(
                SyntheticBundleSpec.builder().vaeEncoder(false).build(), dir);
        JsonNode c = JSON.readTree(bundle.configFile().toFile());
        assertFalse(c.get("supports_img2img").asBoolean());
        assertFalse(c.get("models").has("vae_encoder"));
        assertFalse(c.get("models").has("transformer_fused_4step"));
        assertFalse(Files.exists(bundle.graphFile("vae_encoder")));
        assertFalse(Files.exists(bundle.graphFile("transformer_fused_4step")));
    }

    @Test
    void manifestsAreThePrettyPrintedShardLists() throws IOException {
        SyntheticBundle bundle =
                SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), dir);
        String text = Files.readString(bundle.manifestFile("text_encoder").orElseThrow());
        assertEquals("[\n  \"text-encoder-q4-00001.onnx_data\",\n  \"text-encoder-q4-00002.onnx_data\"\n]\n", text);
        assertEquals(77, text.length(), "same length as the real 77-byte manifest");
        String transformer = Files.readString(bundle.manifestFile("transformer").orElseThrow());
        assertEquals(75, transformer.length(), "same length as the real 75-byte manifest");
        assertEquals(
                List.of("transformer-q4-00001.onnx_data", "transformer-q4-00002.onnx_data"),
                strings(JSON.readTree(transformer)));
        assertTrue(Files.isRegularFile(bundle.tokenizerDirectory().resolve("tokenizer.json")));
        assertTrue(Files.isRegularFile(bundle.tokenizerDirectory().resolve("tokenizer_config.json")));
    }

    @Test
    void quantizedGraphsUseMatMulNBitsOverBothShards() throws IOException {
        SyntheticBundle bundle = SyntheticBundleWriter.write(fullSpec(), dir);
        for (String key : List.of("text_encoder", "transformer", "transformer_fused_4step")) {
            ModelProto model = ModelProto.parseFrom(Files.readAllBytes(bundle.graphFile(key)));
            Map<String, Long> opsets = new HashMap<>();
            for (OperatorSetIdProto o : model.getOpsetImportList()) {
                opsets.put(o.getDomain(), o.getVersion());
            }
            assertEquals(Map.of("", 17L, "com.microsoft", 1L), opsets);
            List<NodeProto> nbits = new ArrayList<>();
            for (NodeProto n : model.getGraph().getNodeList()) {
                if (n.getOpType().equals("MatMulNBits")) {
                    nbits.add(n);
                }
            }
            assertFalse(nbits.isEmpty(), key);
            for (NodeProto n : nbits) {
                assertEquals("com.microsoft", n.getDomain());
                assertEquals(4, n.getInputCount(), "A, B, scales, zero_points");
                Map<String, Long> attrs = new HashMap<>();
                for (AttributeProto a : n.getAttributeList()) {
                    attrs.put(a.getName(), a.getI());
                }
                assertEquals(4L, attrs.get("bits"));
                assertEquals(16L, attrs.get("block_size"));
                assertTrue(attrs.get("K") > 0 && attrs.get("N") > 0);
                assertTrue(attrs.containsKey("accuracy_level"));
            }
            List<Path> shards = bundle.shardFiles(key);
            long[] used = new long[2];
            for (TensorProto t : model.getGraph().getInitializerList()) {
                if (t.getDataLocation() != TensorProto.DataLocation.EXTERNAL) {
                    continue;
                }
                Map<String, String> ext = externalData(t);
                int shard = shards.stream()
                        .map(p -> p.getFileName().toString())
                        .toList()
                        .indexOf(ext.get("location"));
                assertTrue(shard >= 0, "location " + ext.get("location"));
                long end = Long.parseLong(ext.get("offset")) + Long.parseLong(ext.get("length"));
                assertTrue(end <= Files.size(shards.get(shard)), t.getName() + " fits its shard");
                used[shard] += Long.parseLong(ext.get("length"));
            }
            assertTrue(used[0] > 0 && used[1] > 0, key + " uses both shards");
        }
        // The fused graph reads exactly the per-step graph's external tensors.
        assertEquals(
                externalTensors(bundle.graphFile("transformer")),
                externalTensors(bundle.graphFile("transformer_fused_4step")));
    }

    @Test
    void vaeGraphsAreInline() throws IOException {
        SyntheticBundle bundle =
                SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), dir);
        for (BundleGraph g : bundle.spec().graphs()) {
            if (g.manifestName().isEmpty()) {
                assertTrue(externalTensors(bundle.graphFile(g.key())).isEmpty(), g.key());
            }
        }
    }

    /** Names, element types, ranks and symbolic dimension names as ONNX Runtime reports them. */
    @Test
    void graphSignaturesAsOrtSeesThem() throws Exception {
        for (FusedConvention fused : new FusedConvention[] {FusedConvention.ENGINE, FusedConvention.LISTED}) {
            SyntheticBundleSpec spec =
                    SyntheticBundleSpec.builder().fused(fused).build();
            SyntheticBundle bundle = SyntheticBundleWriter.write(spec, dir.resolve(fused.name()));
            for (BundleGraph g : spec.graphs()) {
                try (OrtHarness ort = OrtHarness.open(bundle.graphFile(g.key()))) {
                    assertPorts(
                            g.key() + " inputs",
                            GraphSignatures.inputs(g, spec),
                            ort.session().getInputInfo());
                    assertPorts(
                            g.key() + " outputs",
                            GraphSignatures.outputs(g, spec),
                            ort.session().getOutputInfo());
                }
            }
        }
    }

    /** Every graph runs with the free-dimension overrides the browser engine sets (docs/bundle-format.md §7). */
    @Test
    void everyGraphRunsWithPinnedSymbolicDimensions() throws Exception {
        SyntheticBundleSpec spec = SyntheticBundleSpec.builder()
                .fused(FusedConvention.ENGINE)
                .defaultSize(80, 48)
                .vaeChunkSize(16)
                .build();
        SyntheticBundle bundle = SyntheticBundleWriter.write(spec, dir);
        int gh = 3;
        int gw = 5;
        Map<String, Long> dims = new TreeMap<>();
        dims.put("batch", 1L);
        dims.put("text_seq", (long) spec.textSequenceLength());
        dims.put("image_seq", (long) gh * gw);
        dims.put("latent_height", (long) gh);
        dims.put("latent_width", (long) gw);
        dims.put("height", 16L * gh);
        dims.put("width", 16L * gw);
        dims.put("kv_seq", 4L * gh * gw);
        dims.put("chunk_seq", (long) spec.vaeChunkSize());
        dims.put("heads", 1L);
        dims.put(GraphSignatures.H8, 2L * gh);
        dims.put(GraphSignatures.W8, 2L * gw);
        dims.put(GraphSignatures.H2, 8L * gh);
        dims.put(GraphSignatures.W2, 8L * gw);
        for (BundleGraph g : spec.graphs()) {
            Map<String, float[]> pinned;
            Map<String, float[]> free;
            try (OrtHarness ort = OrtHarness.open(bundle.graphFile(g.key()), dims)) {
                feedRandom(ort, GraphSignatures.inputs(g, spec), dims, new Random(g.ordinal()));
                pinned = ort.run();
            }
            try (OrtHarness ort = OrtHarness.open(bundle.graphFile(g.key()))) {
                feedRandom(ort, GraphSignatures.inputs(g, spec), dims, new Random(g.ordinal()));
                free = ort.run();
            }
            assertEquals(free.keySet(), pinned.keySet());
            for (String out : free.keySet()) {
                assertArrayEquals(free.get(out), pinned.get(out), g.key() + " " + out);
            }
        }
    }

    @Test
    void ortReadsTheShardsAtSessionCreation() throws Exception {
        SyntheticBundle bundle =
                SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), dir);
        Path shard = bundle.shardFiles("transformer").get(1);
        try (FileChannel ch = FileChannel.open(shard, StandardOpenOption.WRITE)) {
            ch.truncate(ch.size() - 100);
        }
        OrtException e = assertThrows(OrtException.class, () -> OrtHarness.open(bundle.graphFile("transformer")));
        System.out.println("truncated shard: " + e.getMessage());
        Files.delete(bundle.shardFiles("text_encoder").get(0));
        assertThrows(OrtException.class, () -> OrtHarness.open(bundle.graphFile("text_encoder")));
    }

    /** Size on disk and write time of the default bundle (printed for the report). */
    @Test
    void defaultBundleIsSmallAndFast() throws IOException {
        SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), dir.resolve("warmup"));
        long start = System.nanoTime();
        SyntheticBundle bundle =
                SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), dir.resolve("b"));
        long millis = (System.nanoTime() - start) / 1_000_000;
        long graphs = 0;
        long tokenizer = 0;
        try (Stream<Path> files = Files.walk(bundle.directory())) {
            for (Path p : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                if (p.startsWith(bundle.tokenizerDirectory())) {
                    tokenizer += Files.size(p);
                } else {
                    graphs += Files.size(p);
                }
            }
        }
        System.out.println("default bundle: " + graphs + " bytes without tokenizer, " + tokenizer
                + " bytes tokenizer copy, written in " + millis + " ms (warm)");
        assertTrue(graphs < 3_000_000, "graphs, shards, manifests and config should be well under 3 MB: " + graphs);
        assertTrue(millis < 1000, "warm write should take well under a second: " + millis + " ms");
    }

    private static void feedRandom(OrtHarness ort, List<Port> ports, Map<String, Long> dims, Random rnd)
            throws OrtException {
        for (Port p : ports) {
            long[] shape = resolve(p, dims);
            int n = (int) count(shape);
            if (p.type() == TensorElementType.INT64) {
                long[] values = new long[n];
                for (int i = 0; i < n; i++) {
                    values[i] = p.name().equals("attention_mask") ? 1 : rnd.nextInt(151_669);
                }
                ort.i64(p.name(), values, shape);
            } else {
                float[] values = TestData.gaussian(rnd, n);
                if (p.type() == TensorElementType.FLOAT16) {
                    ort.fp16(p.name(), values, shape);
                } else {
                    ort.f32(p.name(), values, shape);
                }
            }
        }
    }

    private static long[] resolve(Port p, Map<String, Long> dims) {
        long[] shape = new long[p.shape().size()];
        for (int i = 0; i < shape.length; i++) {
            Dim d = p.shape().get(i);
            shape[i] = d.symbolic() ? dims.get(d.symbol()) : d.value();
        }
        return shape;
    }

    private static long count(long[] shape) {
        long n = 1;
        for (long d : shape) {
            n *= d;
        }
        return n;
    }

    private static void assertPorts(String what, List<Port> expected, Map<String, NodeInfo> actual) {
        assertEquals(expected.stream().map(Port::name).toList(), new ArrayList<>(actual.keySet()), what);
        for (Port p : expected) {
            TensorInfo info = (TensorInfo) actual.get(p.name()).getInfo();
            assertEquals(javaType(p.type()), info.type, what + " " + p.name());
            String[] names = info.getDimensionNames();
            long[] shape = info.getShape();
            assertEquals(p.shape().size(), shape.length, what + " rank of " + p.name());
            for (int i = 0; i < shape.length; i++) {
                Dim d = p.shape().get(i);
                if (d.symbolic()) {
                    assertEquals(d.symbol(), names[i], what + " " + p.name() + " dim " + i);
                    assertEquals(-1, shape[i]);
                } else {
                    assertEquals(d.value(), shape[i], what + " " + p.name() + " dim " + i);
                }
            }
        }
    }

    static OnnxJavaType javaType(TensorElementType t) {
        switch (t) {
            case FLOAT16:
                return OnnxJavaType.FLOAT16;
            case FLOAT:
                return OnnxJavaType.FLOAT;
            case INT64:
                return OnnxJavaType.INT64;
            case INT32:
                return OnnxJavaType.INT32;
            case DOUBLE:
                return OnnxJavaType.DOUBLE;
            default:
                throw new IllegalArgumentException(t.name());
        }
    }

    private static Map<String, Map<String, String>> externalTensors(Path graph) throws IOException {
        ModelProto model = ModelProto.parseFrom(Files.readAllBytes(graph));
        Map<String, Map<String, String>> out = new TreeMap<>();
        for (TensorProto t : model.getGraph().getInitializerList()) {
            if (t.getDataLocation() == TensorProto.DataLocation.EXTERNAL) {
                out.put(t.getName(), externalData(t));
            }
        }
        return out;
    }

    private static Map<String, String> externalData(TensorProto t) {
        Map<String, String> m = new TreeMap<>();
        for (StringStringEntryProto e : t.getExternalDataList()) {
            m.put(e.getKey(), e.getValue());
        }
        return m;
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    private static void assertSameKeys(String path, JsonNode expected, JsonNode actual) {
        assertEquals(expected.getNodeType(), actual.getNodeType(), path + " node type");
        if (expected.isObject()) {
            List<String> e = new ArrayList<>();
            List<String> a = new ArrayList<>();
            expected.fieldNames().forEachRemaining(e::add);
            actual.fieldNames().forEachRemaining(a::add);
            assertEquals(e, a, path + " keys");
            for (Iterator<String> it = expected.fieldNames(); it.hasNext(); ) {
                String k = it.next();
                assertSameKeys(path + "." + k, expected.get(k), actual.get(k));
            }
        }
    }
}
