package dev.flux2.bench.profile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The weight bytes each stage (graph) of a bundle loads: its {@code .onnx} file plus the external-data shards its
 * manifest lists, read from {@code flux2-config.json} and the files on disk.
 */
final class BundleWeights {
    private final Map<String, Long> bytesByGraph;

    private BundleWeights(Map<String, Long> bytesByGraph) {
        this.bytesByGraph = Collections.unmodifiableMap(bytesByGraph);
    }

    /**
     * @param bundle a bundle directory
     * @return the weight bytes per config graph key
     */
    static BundleWeights of(Path bundle) {
        ObjectMapper mapper = new ObjectMapper();
        Path config = bundle.resolve("flux2-config.json");
        try {
            JsonNode models = mapper.readTree(config.toFile()).get("models");
            Map<String, Long> bytes = new LinkedHashMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = models.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                long sum = Files.size(bundle.resolve(e.getValue().get("file").asText()));
                JsonNode manifest = e.getValue().get("manifest");
                if (manifest != null && !manifest.isNull()) {
                    for (JsonNode shard :
                            mapper.readTree(bundle.resolve(manifest.asText()).toFile())) {
                        sum += Files.size(bundle.resolve(shard.asText()));
                    }
                }
                bytes.put(e.getKey(), sum);
            }
            return new BundleWeights(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot size the graphs listed in " + config, e);
        }
    }

    /** @return bytes per graph key, in config order */
    Map<String, Long> bytesByGraph() {
        return bytesByGraph;
    }

    /** @return the graph with the most weight bytes */
    Map.Entry<String, Long> largest() {
        return bytesByGraph.entrySet().stream()
                .max(Map.Entry.comparingByValue())
                .orElseThrow(() -> new IllegalStateException("the bundle lists no graphs"));
    }
}
