package dev.flux2.testkit;

import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Writes {@code flux2-config.json} with exactly the key structure of the real config (every key at every level,
 * in the same order; values describe the synthetic graphs) and the shard manifests.
 */
final class ConfigWriter {
    static final String CONFIG_FILE = "flux2-config.json";
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String SOURCE_MODEL = "black-forest-labs/FLUX.2-klein-4B";

    private final SyntheticBundleSpec spec;
    private final Map<BundleGraph, GraphFile> files;

    ConfigWriter(SyntheticBundleSpec spec, Map<BundleGraph, GraphFile> files) {
        this.spec = spec;
        this.files = files;
    }

    /**
     * Writes a manifest the way the exporter does: a JSON array of shard names, 2-space indent, final newline
     * (in reverse order for {@link BundleVariant#REVERSED_MANIFESTS}).
     */
    static void writeManifest(Path directory, BundleGraph graph, SyntheticBundleSpec spec) {
        List<String> names = new ArrayList<>(graph.shardNames());
        if (spec.has(BundleVariant.REVERSED_MANIFESTS)) {
            Collections.reverse(names);
        }
        StringBuilder sb = new StringBuilder("[\n");
        for (int i = 0; i < names.size(); i++) {
            sb.append("  \"").append(names.get(i)).append('"').append(i + 1 < names.size() ? ",\n" : "\n");
        }
        sb.append("]\n");
        writeString(directory.resolve(graph.manifestName().orElseThrow()), sb.toString());
    }

    void write(Path directory) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("model_name", "flux.2-klein-4b");
        root.put("model_variant", spec.modelVariant());
        root.put("runtime", "onnxruntime-webgpu");
        root.put("ort_python_version", "1.25.1");
        root.put("num_steps", spec.numSteps());
        root.put("guidance", spec.guidance());
        if (spec.contextClip() > 0) {
            root.put("context_clip", spec.contextClip());
        } else {
            root.put("context_clip", 0);
        }
        if (spec.has(BundleVariant.ZERO_PADDED_CONTEXT)) {
            root.put("zero_padded_context", true);
        }
        root.put("text_seq_len", spec.textSequenceLength());
        root.put("context_dim", spec.contextDim());
        root.put("latent_channels", SyntheticDims.LATENT_CHANNELS);
        root.put("latent_downsample", SyntheticDims.LATENT_DOWNSAMPLE);
        root.put("default_width", spec.defaultWidth());
        root.put("default_height", spec.defaultHeight());
        root.put("target_shard_bytes", 2_147_483_648L);
        root.put("tokenizer_dir", SyntheticBundleWriter.TOKENIZER_DIR);
        root.put("tokenizer_source_model", SOURCE_MODEL);
        root.put("tokenizer_source_subfolder", "tokenizer");
        ObjectNode models = root.putObject("models");
        textEncoder(models.putObject(BundleGraph.TEXT_ENCODER.key()));
        transformer(models.putObject(BundleGraph.TRANSFORMER.key()), BundleGraph.TRANSFORMER);
        if (spec.contains(BundleGraph.VAE_DECODER)) {
            inline(models.putObject(BundleGraph.VAE_DECODER.key()), BundleGraph.VAE_DECODER);
        }
        if (spec.contains(BundleGraph.VAE_DECODER_PRE)) {
            vaeDecoderPre(models.putObject(BundleGraph.VAE_DECODER_PRE.key()));
            attentionChunk(models.putObject(BundleGraph.VAE_DECODER_ATTN_CHUNK.key()));
        }
        if (spec.contains(BundleGraph.VAE_DECODER_POST)) {
            stageZero(inline(models.putObject(BundleGraph.VAE_DECODER_POST.key()), BundleGraph.VAE_DECODER_POST));
        }
        for (int i = 0; i < 4; i++) {
            BundleGraph stage = BundleGraph.postStage(i);
            if (spec.contains(stage)) {
                ObjectNode n = inline(models.putObject(stage.key()), stage);
                if (i == 0) {
                    stageZero(n);
                }
            }
        }
        if (spec.contains(BundleGraph.TRANSFORMER_FUSED_4STEP)) {
            ObjectNode fused = models.putObject(BundleGraph.TRANSFORMER_FUSED_4STEP.key());
            transformer(fused, BundleGraph.TRANSFORMER_FUSED_4STEP);
            fused.put("fused_steps", 4);
        }
        if (spec.contains(BundleGraph.VAE_ENCODER)) {
            vaeEncoder(models.putObject(BundleGraph.VAE_ENCODER.key()));
        }
        root.put(
                "notes",
                "Synthetic miniature bundle written by flux2-testkit for tests: the real file, tensor and"
                        + " dimension names, dtypes and ranks, with tiny made-up graphs (q4 MatMulNBits text encoder and"
                        + " transformer with two external-data shards each, split fp16 VAE decoder). Not a model.");
        if (spec.contains(BundleGraph.VAE_DECODER_POST_STAGE_0)) {
            ArrayNode keys = root.putArray("vae_decoder_post_stage_keys");
            for (int i = 0; i < 4; i++) {
                keys.add(BundleGraph.postStage(i).key());
            }
        }
        root.put("supports_img2img", spec.vaeEncoder());
        try {
            String json = MAPPER.writer(prettyPrinter()).writeValueAsString(root);
            writeString(directory.resolve(CONFIG_FILE), json);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serialise " + CONFIG_FILE, e);
        }
    }

    private void textEncoder(ObjectNode n) {
        BundleGraph g = BundleGraph.TEXT_ENCODER;
        n.put("file", g.fileName());
        n.put("manifest", g.manifestName().orElseThrow());
        n.put("dtype", "float16-activations-int4-weights");
        n.put("source_model", SOURCE_MODEL);
        n.put("source_subfolder", "text_encoder");
        io(n, g);
        n.put("execution_provider", "webgpu");
        quantization(n.putObject("quantization"), g, false);
        externalShards(n, g);
    }

    private void transformer(ObjectNode n, BundleGraph g) {
        n.put("file", g.fileName());
        n.put("manifest", g.manifestName().orElseThrow());
        n.put("dtype", "float16-activations-selective-fp32-int4-weights");
        TensorElementType act = spec.activationType(g);
        n.put("activation_dtype", act == TensorElementType.FLOAT16 ? "float16-selective-fp32" : dtype(act));
        io(n, g);
        n.put("execution_provider", "webgpu");
        quantization(n.putObject("quantization"), g, true);
        // The synthetic transformer has no attention: the patch entries keep the real structure with zero counts.
        ObjectNode fix = n.putObject("attention_scale_fix");
        fix.put("type", "fixed_split_scale");
        fix.put("head_dim", 128);
        fix.put("scale_name", "flux2_attention_split_scale_f32");
        fix.put("scale_dtype", "float32");
        fix.put("scale", 0.29730177875068026);
        fix.put("patched_attention_matmuls", 0);
        fix.put("patched_scale_mul_inputs", 0);
        fix.putArray("matmul_names");
        fix.putArray("mul_names");
        ObjectNode fp32 = n.putObject("attention_score_fp32");
        fp32.put("score_matmuls", 0);
        fp32.put("scale_muls", 0);
        fp32.put("input_casts", 0);
        fp32.put("softmax_casts", 0);
        n.put("export_image_seq_len", (spec.defaultWidth() / 16) * (spec.defaultHeight() / 16));
        externalShards(n, g);
    }

    private void quantization(ObjectNode q, BundleGraph g, boolean transformer) {
        GraphFile f = files.get(g);
        int nbits = f.countNodes("MatMulNBits");
        q.put("format", "MatMulNBits");
        if (transformer) {
            q.put("algorithm", "ORT");
        }
        QuantSpec quant = transformer ? spec.transformerQuant() : spec.textEncoderQuant();
        q.put("bits", quant.bits());
        q.put("block_size", quant.blockSize());
        q.put("is_symmetric", false);
        q.putArray("op_types_to_quantize").add("MatMul");
        q.put("matmul_nbits_nodes", nbits);
        q.put("remaining_matmul_nodes", f.countNodes("MatMul"));
        q.put("flattened_matmul_nbits_inputs", nbits);
        q.put("flattened_matmul_nbits_zero_points", nbits);
        if (transformer) {
            ObjectNode rope = q.putObject("rope_fp32_rewrites");
            rope.put("position_id_inputs", 0);
            rope.put("position_id_casts", 0);
            rope.put("rope_frequency_constants", 0);
        }
        q.put("accuracy_level", NBitsTensors.ACCURACY_LEVEL);
        q.put("streaming_source", true);
    }

    private void vaeDecoderPre(ObjectNode n) {
        inline(n, BundleGraph.VAE_DECODER_PRE);
    }

    private void attentionChunk(ObjectNode n) {
        BundleGraph g = BundleGraph.VAE_DECODER_ATTN_CHUNK;
        n.put("file", g.fileName());
        n.put("dtype", dtype(spec.activationType(g)));
        n.put("chunk_size", spec.vaeChunkSize());
        n.put("head_dim", spec.vaeHeadDim());
        io(n, g);
        n.put("execution_provider", "webgpu");
        inlineShards(n, g);
    }

    private void vaeEncoder(ObjectNode n) {
        BundleGraph g = BundleGraph.VAE_ENCODER;
        n.put("file", g.fileName());
        n.put("dtype", dtype(spec.activationType(g)));
        n.put("source_model", SOURCE_MODEL);
        n.put("source_subfolder", "vae");
        io(n, g);
        n.put("execution_provider", "webgpu");
        inlineShards(n, g);
    }

    private ObjectNode inline(ObjectNode n, BundleGraph g) {
        n.put("file", g.fileName());
        n.put("dtype", dtype(spec.activationType(g)));
        io(n, g);
        n.put("execution_provider", "webgpu");
        inlineShards(n, g);
        return n;
    }

    /**
     * The first post graph names its inputs when they are not in the seed's order, unless the config carries no
     * tensor names at all (the backend must then match the residual by name).
     */
    private void stageZero(ObjectNode n) {
        if (spec.has(BundleVariant.REVERSED_STAGE_ZERO_INPUTS) && !spec.has(BundleVariant.NO_CONFIG_TENSOR_NAMES)) {
            n.put("residual_input", TensorNames.VAE_RESIDUAL);
            n.put("attn_input", TensorNames.VAE_ATTENTION);
        }
    }

    /** @return the config's name for an element type */
    private static String dtype(TensorElementType t) {
        return switch (t) {
            case FLOAT16 -> "float16";
            case FLOAT -> "float32";
            case BFLOAT16 -> "bfloat16";
            case DOUBLE -> "float64";
            default -> t.name().toLowerCase(java.util.Locale.ROOT);
        };
    }

    private void io(ObjectNode n, BundleGraph g) {
        if (spec.has(BundleVariant.NO_CONFIG_TENSOR_NAMES)) {
            return;
        }
        ArrayNode inputs = n.putArray("inputs");
        spec.inputNames(g.key()).forEach(inputs::add);
        ArrayNode outputs = n.putArray("outputs");
        spec.outputNames(g.key()).forEach(outputs::add);
    }

    private void externalShards(ObjectNode n, BundleGraph g) {
        GraphFile f = files.get(g);
        ObjectNode s = n.putObject("shards");
        s.put("count", f.shardBytes().length);
        s.put("total_bytes", f.totalShardBytes());
        s.put("largest_bytes", f.largestShardBytes());
    }

    private void inlineShards(ObjectNode n, BundleGraph g) {
        ObjectNode s = n.putObject("shards");
        if (!spec.has(BundleVariant.MINIMAL_INLINE_SHARDS)) {
            s.put("count", 0);
            s.put("total_bytes", 0);
        }
        s.put("onnx_bytes", files.get(g).onnxBytes());
    }

    /** Python's {@code json.dumps(indent=2)} layout: one value per line, {@code "key": value}. */
    private static DefaultPrettyPrinter prettyPrinter() {
        DefaultIndenter indenter = new DefaultIndenter("  ", "\n");
        DefaultPrettyPrinter printer = new DefaultPrettyPrinter()
                .withSeparators(Separators.createDefaultInstance()
                        .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
                        .withArrayEmptySeparator("")
                        .withObjectEmptySeparator(""));
        printer.indentObjectsWith(indenter);
        printer.indentArraysWith(indenter);
        return printer;
    }

    private static void writeString(Path file, String text) {
        try {
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
