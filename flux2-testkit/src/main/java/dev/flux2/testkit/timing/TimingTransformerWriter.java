package dev.flux2.testkit.timing;

import ai.onnx.proto.OnnxMl.ModelProto;
import dev.flux2.testkit.BundleGraph;
import dev.flux2.testkit.ExternalDataWriter;
import dev.flux2.testkit.SyntheticBundleSpec;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a timing transformer graph and its two external-data shards under the real transformer file names
 * ({@link BundleGraph#TRANSFORMER}), with the real I/O contract: {@code x} f16 [batch, image_seq, 128],
 * {@code x_ids} f32 [batch, image_seq, 4], {@code timesteps} f16 [1], {@code ctx} f16 [batch, text_seq, context],
 * {@code ctx_ids} f32 [batch, text_seq, 4] → {@code pred} f16 [batch, image_seq, 128].
 */
public final class TimingTransformerWriter {
    private static final Logger LOG = LoggerFactory.getLogger(TimingTransformerWriter.class);

    private TimingTransformerWriter() {}

    /**
     * @param spec the graph's width and block counts
     * @param directory target directory (created if needed; existing transformer files are overwritten)
     * @return the written files
     * @throws UncheckedIOException if a file cannot be written
     */
    public static TimingTransformerFiles write(TimingTransformerSpec spec, Path directory) {
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(directory, "directory");
        long start = System.nanoTime();
        BundleGraph g = BundleGraph.TRANSFORMER;
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create directory " + directory, e);
        }
        // Only the context width of the signature matters here; the rest of the synthetic spec is unused.
        SyntheticBundleSpec signature =
                SyntheticBundleSpec.builder().contextDim(spec.contextDim()).build();
        TimingWeights weights;
        long[] sizes;
        try (ExternalDataWriter ext = new ExternalDataWriter(directory, g.shardNames())) {
            weights = TimingWeights.write(spec, ext);
            sizes = ext.sizes();
        }
        ModelProto model = new TimingTransformerGraph(spec, weights, signature).build();
        Path file = directory.resolve(g.fileName());
        try (OutputStream out = Files.newOutputStream(file)) {
            model.writeTo(out);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write timing transformer graph " + file, e);
        }
        List<Path> shards = new ArrayList<>();
        List<Long> shardBytes = new ArrayList<>();
        for (int i = 0; i < g.shardNames().size(); i++) {
            shards.add(directory.resolve(g.shardNames().get(i)));
            shardBytes.add(sizes[i]);
        }
        TimingTransformerFiles files =
                new TimingTransformerFiles(file, shards, shardBytes, weights.count(), weights.bytes(), spec);
        LOG.info(
                "wrote timing transformer {} ({} linear layers, {} MiB of weights) to {} in {} ms",
                spec,
                weights.count(),
                weights.bytes() >> 20,
                directory,
                (System.nanoTime() - start) / 1_000_000);
        return files;
    }
}
