package dev.flux2.testkit;

import ai.onnx.proto.OnnxMl.ModelProto;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a synthetic bundle in the spec's {@link ExportLayout}.
 *
 * <p>MarkShark2: every graph of the real bundle under its real file name (the VAE decoder graphs of the spec's
 * layout), the two external-data shards plus manifest of the text encoder and of the transformer (shared with the
 * fused graph), the tokenizer copy and {@code flux2-config.json}.
 *
 * <p>hlhc: {@code text_encoder.onnx}, {@code transformer.onnx}, {@code vae_decoder.onnx} and (optionally)
 * {@code vae_encoder.onnx}, each with its {@code .onnx.data}, hlhc's tensor names, the tokenizer in
 * {@code tokenizer/} (or beside the graphs) and no {@code flux2-config.json}; optionally a {@code config.json} of keys
 * this SDK does not know.
 */
public final class SyntheticBundleWriter {
    /** Config {@code tokenizer_dir}. */
    public static final String TOKENIZER_DIR = "tokenizer";

    private static final Logger LOG = LoggerFactory.getLogger(SyntheticBundleWriter.class);

    private SyntheticBundleWriter() {}

    /**
     * Writes the bundle described by {@code spec} into {@code directory} (created if needed; existing bundle
     * files are overwritten).
     *
     * @param spec what to write
     * @param directory target directory
     * @return the written bundle
     * @throws UncheckedIOException if a file cannot be written or the tokenizer source cannot be read
     */
    public static SyntheticBundle write(SyntheticBundleSpec spec, Path directory) {
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(directory, "directory");
        long start = System.nanoTime();
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create bundle directory " + directory, e);
        }
        Map<BundleGraph, GraphFile> files = new EnumMap<>(BundleGraph.class);
        writeTextEncoder(spec, directory, files);
        writeTransformers(spec, directory, files);
        writeVae(spec, directory, files);
        boolean beside = spec.has(BundleVariant.TOKENIZER_BESIDE_GRAPHS);
        copyTokenizer(spec.tokenizerSource(), beside ? directory : directory.resolve(TOKENIZER_DIR));
        if (spec.layout() == ExportLayout.MARKSHARK2) {
            new ConfigWriter(spec, files).write(directory);
        } else if (spec.has(BundleVariant.UNKNOWN_CONFIG_JSON)) {
            HlhcConfigJson.write(directory, spec);
        }
        LOG.debug("wrote synthetic bundle {} ({}) in {} ms", directory, spec, (System.nanoTime() - start) / 1_000_000);
        return new SyntheticBundle(directory, spec);
    }

    private static void writeTextEncoder(SyntheticBundleSpec spec, Path dir, Map<BundleGraph, GraphFile> files) {
        BundleGraph g = BundleGraph.TEXT_ENCODER;
        TextEncoderWeights w = TextEncoderWeights.generate(spec);
        ModelProto model;
        long[] shardSizes;
        try (ExternalDataWriter ext = new ExternalDataWriter(dir, spec.shardNames(g))) {
            NBitsTensors q = NBitsTensors.write(ext, "/synthetic/text_encoder/projection", w.projection());
            model = layout(spec, g, TextEncoderGraph.build(spec, w, q));
            shardSizes = ext.sizes();
        }
        files.put(g, new GraphFile(model, writeModel(dir, spec, g, model), shardSizes));
        if (spec.layout() == ExportLayout.MARKSHARK2) {
            ConfigWriter.writeManifest(dir, g, spec);
        }
    }

    private static void writeTransformers(SyntheticBundleSpec spec, Path dir, Map<BundleGraph, GraphFile> files) {
        BundleGraph g = BundleGraph.TRANSFORMER;
        TransformerWeights w = TransformerWeights.generate(spec);
        TransformerGraph graphs;
        long[] shardSizes;
        try (ExternalDataWriter ext = new ExternalDataWriter(dir, spec.shardNames(g))) {
            NBitsTensors tokens =
                    NBitsTensors.write(ext, "/synthetic/transformer/token_projection", w.tokenProjection());
            NBitsTensors padding =
                    spec.paddingColumns() > 0 ? NBitsTensors.writePadding(ext, spec.paddingColumns()) : null;
            graphs = new TransformerGraph(spec, w, tokens, padding);
            shardSizes = ext.sizes();
        }
        ModelProto perStep = layout(spec, g, graphs.perStep());
        files.put(g, new GraphFile(perStep, writeModel(dir, spec, g, perStep), shardSizes));
        if (spec.layout() == ExportLayout.MARKSHARK2) {
            ConfigWriter.writeManifest(dir, g, spec);
        }
        if (spec.contains(BundleGraph.TRANSFORMER_FUSED_4STEP)) {
            ModelProto fused = graphs.fused();
            BundleGraph f = BundleGraph.TRANSFORMER_FUSED_4STEP;
            files.put(f, new GraphFile(fused, writeModel(dir, spec, f, fused), shardSizes));
        }
    }

    private static void writeVae(SyntheticBundleSpec spec, Path dir, Map<BundleGraph, GraphFile> files) {
        VaeWeights w = VaeWeights.generate(spec);
        VaeDecoderGraphs decoder = new VaeDecoderGraphs(spec, w);
        if (spec.contains(BundleGraph.VAE_DECODER)) {
            putInline(dir, spec, files, BundleGraph.VAE_DECODER, decoder.unified());
        }
        if (spec.contains(BundleGraph.VAE_DECODER_PRE)) {
            putInline(dir, spec, files, BundleGraph.VAE_DECODER_PRE, decoder.pre());
            putInline(dir, spec, files, BundleGraph.VAE_DECODER_ATTN_CHUNK, decoder.attentionChunk());
        }
        if (spec.contains(BundleGraph.VAE_DECODER_POST)) {
            putInline(dir, spec, files, BundleGraph.VAE_DECODER_POST, decoder.singlePost());
        }
        for (int i = 0; i < 4; i++) {
            if (spec.contains(BundleGraph.postStage(i))) {
                putInline(dir, spec, files, BundleGraph.postStage(i), decoder.postStage(i));
            }
        }
        if (spec.contains(BundleGraph.VAE_ENCODER)) {
            putInline(dir, spec, files, BundleGraph.VAE_ENCODER, VaeEncoderGraph.build(spec, w));
        }
    }

    /** A graph whose builder keeps its weights inline; hlhc's export moves them into its {@code .onnx.data}. */
    private static void putInline(
            Path dir, SyntheticBundleSpec spec, Map<BundleGraph, GraphFile> files, BundleGraph g, ModelProto model) {
        ModelProto written = model;
        if (spec.layout() == ExportLayout.HLHC) {
            written = HlhcExport.externalize(
                    layout(spec, g, model), dir, spec.shardNames(g).get(0));
        }
        files.put(g, new GraphFile(written, writeModel(dir, spec, g, written), new long[0]));
    }

    /** @return the model with the layout's tensor names */
    private static ModelProto layout(SyntheticBundleSpec spec, BundleGraph g, ModelProto model) {
        return spec.layout() == ExportLayout.HLHC ? HlhcExport.rename(g, model) : model;
    }

    private static long writeModel(Path dir, SyntheticBundleSpec spec, BundleGraph g, ModelProto model) {
        Path file = dir.resolve(spec.fileName(g));
        try (OutputStream out = Files.newOutputStream(file)) {
            model.writeTo(out);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write graph " + file, e);
        }
        return model.getSerializedSize();
    }

    private static void copyTokenizer(Path source, Path target) {
        if (!Files.isDirectory(source)) {
            throw new UncheckedIOException(
                    new IOException(
                            "tokenizer source " + source
                                    + " is not a directory (set SyntheticBundleSpec.Builder.tokenizerSource, or leave it unset for the shipped fixture)"));
        }
        try {
            Files.createDirectories(target);
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(source)) {
                for (Path p : entries) {
                    if (Files.isRegularFile(p)) {
                        // Always a copy, never a link: failure tests may corrupt the bundle's tokenizer files.
                        Files.copy(p, target.resolve(p.getFileName().toString()), StandardCopyOption.REPLACE_EXISTING);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot copy tokenizer " + source + " to " + target, e);
        }
    }
}
