package dev.flux2.testkit.timing;

import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnx.proto.OnnxMl.NodeProto;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flux2.testkit.BundleGraph;
import dev.flux2.testkit.ExternalDataWriter;
import dev.flux2.testkit.SyntheticBundleSpec;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a full-size synthetic bundle ({@link FullSizeBundleSpec}): {@link TimingBundleWriter} writes the bundle
 * with the timing transformer, then the miniature text encoder (graph and both shards) and split VAE decoder are
 * replaced by {@link FullSizeTextEncoderGraph} and {@link FullSizeVaeDecoderGraphs} under the same file names, and
 * {@code flux2-config.json} is updated to describe them (MatMulNBits counts, shard sizes, graph sizes, the attention
 * chunk's width). The miniature VAE encoder stays (img2img runs, but its cost is not the real one's).
 */
public final class FullSizeBundleWriter {
    private static final Logger LOG = LoggerFactory.getLogger(FullSizeBundleWriter.class);
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private FullSizeBundleWriter() {}

    /**
     * @param spec what to write
     * @param directory target directory (created if needed)
     * @return the written bundle
     * @throws UncheckedIOException if a file cannot be written
     */
    public static FullSizeBundle write(FullSizeBundleSpec spec, Path directory) {
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(directory, "directory");
        long start = System.nanoTime();
        TimingBundleWriter.write(
                TimingBundleSpec.builder()
                        .transformer(spec.transformer())
                        .defaultSize(spec.width(), spec.height())
                        .textSequenceLength(spec.textSequenceLength())
                        .vaeChunkSize(spec.vaeChunkSize())
                        .build(),
                directory);
        SyntheticBundleSpec signature = SyntheticBundleSpec.builder()
                .textSequenceLength(spec.textSequenceLength())
                .contextDim(spec.textEncoder().contextDim())
                .defaultSize(spec.width(), spec.height())
                .vaeChunkSize(spec.vaeChunkSize())
                .vaeHeadDim(spec.vaeDecoder().midChannels())
                .build();
        BundleGraph te = BundleGraph.TEXT_ENCODER;
        ModelProto textEncoder;
        long[] shardSizes;
        try (ExternalDataWriter ext = new ExternalDataWriter(directory, te.shardNames())) {
            textEncoder = FullSizeTextEncoderGraph.write(spec.textEncoder(), signature, spec.seed(), ext);
            shardSizes = ext.sizes();
        }
        writeModel(directory.resolve(te.fileName()), textEncoder);
        List<ModelProto> vae = new FullSizeVaeDecoderGraphs(spec.vaeDecoder(), signature, spec.seed() ^ 0x7AE).build();
        List<BundleGraph> vaeGraphs = FullSizeVaeDecoderGraphs.graphs();
        for (int i = 0; i < vae.size(); i++) {
            writeModel(directory.resolve(vaeGraphs.get(i).fileName()), vae.get(i));
        }
        int linears = count(textEncoder, "MatMulNBits");
        patchConfig(directory, spec, textEncoder, shardSizes);
        long bytes = folderBytes(directory);
        LOG.info(
                "wrote full-size bundle {} ({} MiB) to {} in {} ms",
                spec,
                bytes >> 20,
                directory,
                (System.nanoTime() - start) / 1_000_000);
        return new FullSizeBundle(directory, spec, linears, bytes);
    }

    private static void patchConfig(Path dir, FullSizeBundleSpec spec, ModelProto textEncoder, long[] shards) {
        Path configFile = dir.resolve("flux2-config.json");
        try {
            ObjectNode root = (ObjectNode) MAPPER.readTree(configFile.toFile());
            ObjectNode models = (ObjectNode) root.get("models");
            ObjectNode te = (ObjectNode) models.get(BundleGraph.TEXT_ENCODER.key());
            ObjectNode q = (ObjectNode) te.get("quantization");
            int nbits = count(textEncoder, "MatMulNBits");
            q.put("matmul_nbits_nodes", nbits);
            q.put("remaining_matmul_nodes", count(textEncoder, "MatMul"));
            q.put("flattened_matmul_nbits_inputs", nbits);
            q.put("flattened_matmul_nbits_zero_points", nbits);
            q.put("accuracy_level", 0);
            ObjectNode s = (ObjectNode) te.get("shards");
            long total = 0;
            long largest = 0;
            for (long b : shards) {
                total += b;
                largest = Math.max(largest, b);
            }
            s.put("count", shards.length);
            s.put("total_bytes", total);
            s.put("largest_bytes", largest);
            for (BundleGraph g : FullSizeVaeDecoderGraphs.graphs()) {
                ObjectNode entry = (ObjectNode) models.get(g.key());
                if (entry.has("shards")) {
                    ((ObjectNode) entry.get("shards")).put("onnx_bytes", Files.size(dir.resolve(g.fileName())));
                }
                if (g == BundleGraph.VAE_DECODER_ATTN_CHUNK) {
                    entry.put("head_dim", spec.vaeDecoder().midChannels());
                    entry.put("chunk_size", spec.vaeChunkSize());
                }
            }
            root.put(
                    "notes",
                    "Full-size synthetic bundle written by flux2-testkit: every part at FLUX.2 [klein] 4B's shapes"
                            + " with random weights (" + spec + "). For speed measurements only; not a model.");
            MAPPER.writerWithDefaultPrettyPrinter().writeValue(configFile.toFile(), root);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot update " + configFile + " for the full-size parts", e);
        }
    }

    private static void writeModel(Path file, ModelProto model) {
        try (OutputStream out = Files.newOutputStream(file)) {
            model.writeTo(out);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    private static long folderBytes(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile)
                    .mapToLong(p -> p.toFile().length())
                    .sum();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir, e);
        }
    }

    static int count(ModelProto model, String opType) {
        int n = 0;
        for (NodeProto node : model.getGraph().getNodeList()) {
            if (node.getOpType().equals(opType)) {
                n++;
            }
        }
        return n;
    }
}
