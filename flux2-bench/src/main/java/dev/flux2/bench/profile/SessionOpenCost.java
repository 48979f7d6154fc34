package dev.flux2.bench.profile;

import dev.flux2.api.MemoryPolicy;
import dev.flux2.onnx.BackendAssembly;
import dev.flux2.onnx.bundle.GraphKeys;
import dev.flux2.onnx.bundle.OnnxBundle;
import dev.flux2.onnx.options.OnnxOptions;
import dev.flux2.onnx.session.ManagedSession;
import dev.flux2.onnx.session.SessionFactory;
import dev.flux2.onnx.stage.SessionSpecs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How long ONNX Runtime takes to create (and close) the session of each graph a text-to-image generation opens,
 * through the backend's own {@link SessionFactory}. Under SEQUENTIAL every generation pays this; the time is spent
 * in native session creation (reading and pre-packing weights), outside {@code OrtSession.run}, so the pipeline's
 * {@code total − runtime} counts it.
 */
final class SessionOpenCost {
    private static final int REPETITIONS = 2;

    private final Map<String, Long> nanosByGraph;

    private SessionOpenCost(Map<String, Long> nanosByGraph) {
        this.nanosByGraph = Collections.unmodifiableMap(nanosByGraph);
    }

    /**
     * Opens each graph {@value #REPETITIONS} times (files already in the page cache after the generations) and
     * keeps the faster time.
     *
     * @param bundle the bundle directory
     * @param threads intra-op threads as the pipeline used them
     * @return the cost per graph key
     */
    static SessionOpenCost measure(Path bundle, int threads) {
        OnnxBundle b = OnnxBundle.load(bundle);
        // As the backend assembles them, with unpinned dimensions (one session per graph, whatever the size).
        BackendAssembly assembly = BackendAssembly.assemble(
                b, OnnxOptions.builder().threads(threads).pinDimensions(false).build(), MemoryPolicy.SEQUENTIAL);
        SessionSpecs specs = assembly.specs();
        SessionFactory factory = assembly.sessionFactory();
        List<String> keys = new ArrayList<>(List.of(GraphKeys.TEXT_ENCODER, GraphKeys.TRANSFORMER));
        keys.addAll(b.io().decoder().graphKeys());
        Map<String, Long> nanos = new LinkedHashMap<>();
        for (String key : keys) {
            long best = Long.MAX_VALUE;
            for (int i = 0; i < REPETITIONS; i++) {
                long start = System.nanoTime();
                try (ManagedSession session = factory.open(specs.forInputs(key, Map.of()))) {
                    best = Math.min(best, System.nanoTime() - start);
                }
            }
            nanos.put(key, best);
        }
        assembly.sessions().close();
        return new SessionOpenCost(nanos);
    }

    /** @return nanoseconds to create each graph's session, in the order a generation opens them */
    Map<String, Long> nanosByGraph() {
        return nanosByGraph;
    }

    /** @return the sum over the graphs: what one SEQUENTIAL generation spends creating sessions */
    long totalNanos() {
        return nanosByGraph.values().stream().mapToLong(Long::longValue).sum();
    }
}
