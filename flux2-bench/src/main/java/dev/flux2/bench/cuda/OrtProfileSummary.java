package dev.flux2.bench.cuda;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Time per operator type in ONNX Runtime's profile ({@code SessionOptions.enableProfiling}): the {@code Node} events'
 * kernel times of the last {@code model_run}. On CUDA these are host-side times; with {@code CUDA_LAUNCH_BLOCKING=1}
 * every launch waits for its kernel, so they are the kernels' times plus the launch cost.
 */
final class OrtProfileSummary {
    private OrtProfileSummary() {}

    static void print(String profileFile, int top) throws IOException {
        JsonNode events = new ObjectMapper().readTree(Path.of(profileFile).toFile());
        long lastRun = 0;
        for (JsonNode e : events) {
            if ("model_run".equals(e.path("name").asText())) {
                lastRun = Math.max(lastRun, e.path("ts").asLong());
            }
        }
        Map<String, long[]> byOp = new TreeMap<>();
        Map<String, List<JsonNode>> nodesByOp = new TreeMap<>();
        long total = 0;
        for (JsonNode e : events) {
            if ("Node".equals(e.path("cat").asText())
                    && e.path("name").asText().endsWith("_kernel_time")
                    && e.path("ts").asLong() >= lastRun) {
                long dur = e.path("dur").asLong();
                long[] v = byOp.computeIfAbsent(e.path("args").path("op_name").asText("?"), k -> new long[2]);
                v[0] += dur;
                v[1]++;
                total += dur;
                nodesByOp
                        .computeIfAbsent(e.path("args").path("op_name").asText("?"), k -> new ArrayList<>())
                        .add(e);
            }
        }
        long all = Math.max(total, 1);
        byOp.entrySet().stream()
                .sorted((a, b) -> Long.compare(b.getValue()[0], a.getValue()[0]))
                .limit(top)
                .forEach(e -> System.out.printf(
                        Locale.ROOT,
                        "  %-28s %5d nodes %9.2f ms %5.1f %%%n",
                        e.getKey(),
                        e.getValue()[1],
                        e.getValue()[0] / 1e3,
                        100.0 * e.getValue()[0] / all));
        System.out.printf(Locale.ROOT, "  %-28s %9.2f ms%n", "total", total / 1e3);
        for (String op : DETAILED) {
            List<JsonNode> nodes = nodesByOp.getOrDefault(op, List.of());
            if (nodes.isEmpty()) {
                continue;
            }
            System.out.println("  largest " + op + " nodes:");
            nodes.stream()
                    .sorted((a, b) ->
                            Long.compare(b.path("dur").asLong(), a.path("dur").asLong()))
                    .limit(4)
                    .forEach(n -> System.out.printf(
                            Locale.ROOT,
                            "    %7.3f ms %s %s%n",
                            n.path("dur").asLong() / 1e3,
                            n.path("name").asText().replace("_kernel_time", ""),
                            n.path("args").path("input_type_shape").toString()));
        }
    }

    /** Operator types whose largest nodes are listed: the elementwise work around attention and RoPE. */
    private static final List<String> DETAILED = List.of("Split", "Mul", "Cast", "Concat");
}
