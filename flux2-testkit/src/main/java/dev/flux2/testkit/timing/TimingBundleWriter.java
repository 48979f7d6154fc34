package dev.flux2.testkit.timing;

import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnx.proto.OnnxMl.NodeProto;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flux2.testkit.BundleGraph;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Writes a timing bundle: {@link SyntheticBundleWriter} writes a synthetic bundle at the real text length and
 * context width (its text encoder and VAE are miniature and cost almost nothing), then its transformer graph and
 * shards are replaced by a {@link TimingTransformerWriter realistic-width timing transformer} and the
 * transformer entry of {@code flux2-config.json} is updated to describe it. There is no fused graph.
 */
public final class TimingBundleWriter {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private TimingBundleWriter() {}

    /**
     * @param spec what to write
     * @param directory target directory (created if needed)
     * @return the written bundle
     * @throws UncheckedIOException if a file cannot be written
     */
    public static TimingBundle write(TimingBundleSpec spec, Path directory) {
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(directory, "directory");
        SyntheticBundleSpec.Builder synthetic = SyntheticBundleSpec.builder()
                .textSequenceLength(spec.textSequenceLength())
                .contextDim(spec.transformer().contextDim())
                .defaultSize(spec.width(), spec.height())
                .vaeChunkSize(spec.vaeChunkSize());
        spec.tokenizerSource().ifPresent(synthetic::tokenizerSource);
        SyntheticBundle bundle = SyntheticBundleWriter.write(synthetic.build(), directory);
        TimingTransformerFiles transformer = TimingTransformerWriter.write(spec.transformer(), directory);
        patchConfig(bundle.configFile(), transformer);
        return new TimingBundle(directory, spec, transformer);
    }

    private static void patchConfig(Path configFile, TimingTransformerFiles files) {
        try {
            ObjectNode root = (ObjectNode) MAPPER.readTree(configFile.toFile());
            ObjectNode t = (ObjectNode) root.get("models").get(BundleGraph.TRANSFORMER.key());
            ModelProto model;
            try (InputStream in = Files.newInputStream(files.graphFile())) {
                model = ModelProto.parseFrom(in);
            }
            int nbits = count(model, "MatMulNBits");
            int blocks = files.spec().doubleBlocks() + files.spec().singleBlocks();
            int scoreMatMuls = blocks * files.spec().headGroups();
            ObjectNode q = (ObjectNode) t.get("quantization");
            q.put("matmul_nbits_nodes", nbits);
            q.put("remaining_matmul_nodes", count(model, "MatMul"));
            q.put("flattened_matmul_nbits_inputs", nbits);
            q.put("flattened_matmul_nbits_zero_points", nbits);
            q.put("accuracy_level", files.spec().accuracyLevel());
            ObjectNode fix = (ObjectNode) t.get("attention_scale_fix");
            fix.put("patched_attention_matmuls", scoreMatMuls);
            fix.put("patched_scale_mul_inputs", 2 * blocks);
            ObjectNode fp32 = (ObjectNode) t.get("attention_score_fp32");
            fp32.put("score_matmuls", scoreMatMuls);
            fp32.put("scale_muls", 2 * blocks);
            ObjectNode shards = (ObjectNode) t.get("shards");
            shards.put("count", files.shardBytes().size());
            shards.put("total_bytes", files.totalShardBytes());
            shards.put("largest_bytes", files.largestShardBytes());
            root.put(
                    "notes",
                    "Timing bundle written by flux2-testkit: the transformer is a realistic-width FLUX.2"
                            + " [klein] graph with random weights and "
                            + files.spec().doubleBlocks() + " double-stream + "
                            + files.spec().singleBlocks() + " single-stream blocks (" + files.spec()
                            + "); the text encoder"
                            + " and VAE are synthetic miniatures. For speed measurements only; not a model.");
            MAPPER.writerWithDefaultPrettyPrinter().writeValue(configFile.toFile(), root);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot update " + configFile + " for the timing transformer", e);
        }
    }

    private static int count(ModelProto model, String opType) {
        int n = 0;
        for (NodeProto node : model.getGraph().getNodeList()) {
            if (node.getOpType().equals(opType)) {
                n++;
            }
        }
        return n;
    }
}
