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
 * Writes a synthetic bundle: every graph of the real bundle under its real file name (the VAE decoder graphs of the
 * spec's layout), the two external-data shards plus manifest of the text encoder and of the transformer (shared
 * with the fused graph), the tokenizer copy and {@code flux2-config.json}.
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
        copyTokenizer(spec.tokenizerSource(), directory.resolve(TOKENIZER_DIR));
        new ConfigWriter(spec, files).write(directory);
        LOG.debug("wrote synthetic bundle {} ({}) in {} ms", directory, spec, (System.nanoTime() - start) / 1_000_000);
        return new SyntheticBundle(directory, spec);
    }

    private static void writeTextEncoder(SyntheticBundleSpec spec, Path dir, Map<BundleGraph, GraphFile> files) {
        BundleGraph g = BundleGraph.TEXT_ENCODER;
        TextEncoderWeights w = TextEncoderWeights.generate(spec);
        ModelProto model;
        long[] shardSizes;
        try (ExternalDataWriter ext = new ExternalDataWriter(dir, g.shardNames())) {
            Q4Tensors q4 = Q4Tensors.write(ext, "/synthetic/text_encoder/projection", w.projection());
            model = TextEncoderGraph.build(spec, w, q4);
            shardSizes = ext.sizes();
        }
        files.put(g, new GraphFile(model, writeModel(dir, g, model), shardSizes));
        ConfigWriter.writeManifest(dir, g, spec);
    }

    private static void writeTransformers(SyntheticBundleSpec spec, Path dir, Map<BundleGraph, GraphFile> files) {
        BundleGraph g = BundleGraph.TRANSFORMER;
        TransformerWeights w = TransformerWeights.generate(spec);
        TransformerGraph graphs;
        long[] shardSizes;
        try (ExternalDataWriter ext = new ExternalDataWriter(dir, g.shardNames())) {
            Q4Tensors tokens = Q4Tensors.write(ext, "/synthetic/transformer/token_projection", w.tokenProjection());
            Q4Tensors padding = spec.paddingColumns() > 0 ? Q4Tensors.writePadding(ext, spec.paddingColumns()) : null;
            graphs = new TransformerGraph(spec, w, tokens, padding);
            shardSizes = ext.sizes();
        }
        ModelProto perStep = graphs.perStep();
        files.put(g, new GraphFile(perStep, writeModel(dir, g, perStep), shardSizes));
        ConfigWriter.writeManifest(dir, g, spec);
        if (spec.contains(BundleGraph.TRANSFORMER_FUSED_4STEP)) {
            ModelProto fused = graphs.fused();
            BundleGraph f = BundleGraph.TRANSFORMER_FUSED_4STEP;
            files.put(f, new GraphFile(fused, writeModel(dir, f, fused), shardSizes));
        }
    }

    private static void writeVae(SyntheticBundleSpec spec, Path dir, Map<BundleGraph, GraphFile> files) {
        VaeWeights w = VaeWeights.generate(spec);
        VaeDecoderGraphs decoder = new VaeDecoderGraphs(spec, w);
        if (spec.contains(BundleGraph.VAE_DECODER)) {
            putInline(dir, files, BundleGraph.VAE_DECODER, decoder.unified());
        }
        if (spec.contains(BundleGraph.VAE_DECODER_PRE)) {
            putInline(dir, files, BundleGraph.VAE_DECODER_PRE, decoder.pre());
            putInline(dir, files, BundleGraph.VAE_DECODER_ATTN_CHUNK, decoder.attentionChunk());
        }
        if (spec.contains(BundleGraph.VAE_DECODER_POST)) {
            putInline(dir, files, BundleGraph.VAE_DECODER_POST, decoder.singlePost());
        }
        for (int i = 0; i < 4; i++) {
            if (spec.contains(BundleGraph.postStage(i))) {
                putInline(dir, files, BundleGraph.postStage(i), decoder.postStage(i));
            }
        }
        if (spec.contains(BundleGraph.VAE_ENCODER)) {
            putInline(dir, files, BundleGraph.VAE_ENCODER, VaeEncoderGraph.build(spec, w));
        }
    }

    private static void putInline(Path dir, Map<BundleGraph, GraphFile> files, BundleGraph g, ModelProto model) {
        files.put(g, new GraphFile(model, writeModel(dir, g, model), new long[0]));
    }

    private static long writeModel(Path dir, BundleGraph g, ModelProto model) {
        Path file = dir.resolve(g.fileName());
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
