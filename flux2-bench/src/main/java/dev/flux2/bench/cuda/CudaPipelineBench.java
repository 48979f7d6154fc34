package dev.flux2.bench.cuda;

import dev.flux2.Flux2Pipeline;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.api.MemoryPolicy;
import dev.flux2.api.Stage;
import dev.flux2.api.StageTimings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Whole images from one warm pipeline on a GPU provider: the pipeline is built once (resident), then per size the
 * first image (session creation where it is lazy, and the first run's warm-up: kernel and algorithm selection,
 * arena growth) and {@code --images} more, each with its own prompt (so the text encoder runs every time) and seed.
 * Prints the build time, the first image's stages, and the median of the warm images' stages (tokenize, text
 * encode, denoise, VAE decode, total). Meant for the full-size synthetic bundle
 * ({@code dev.flux2.testkit.timing.FullSizeBundleMain}).
 *
 * <pre>java -Xmx24g -Donnxruntime.native.path=DIR -cp flux2.jar:flux2-bench.jar:flux2-testkit.jar \
 *     dev.flux2.bench.cuda.CudaPipelineBench --model DIR [--size 512,1024] [--images 5] [--provider cuda] \
 *     [--option KEY=VALUE]...</pre>
 */
public final class CudaPipelineBench {
    private CudaPipelineBench() {}

    /**
     * @param args options, see the class comment
     */
    public static void main(String[] args) {
        Path model = null;
        String sizes = "512,1024";
        int images = 5;
        String provider = "cuda";
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--model" -> model = Path.of(args[++i]);
                case "--size" -> sizes = args[++i];
                case "--images" -> images = Integer.parseInt(args[++i]);
                case "--provider" -> provider = args[++i];
                case "--option" -> {
                    String[] kv = args[++i].split("=", 2);
                    options.put(kv[0], kv[1]);
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (model == null) {
            throw new IllegalArgumentException("--model DIR is required");
        }
        long t0 = System.nanoTime();
        Flux2Pipeline.Builder builder = Flux2Pipeline.builder()
                .model(model)
                .memoryPolicy(MemoryPolicy.RESIDENT)
                .backendOption("providers", provider);
        options.forEach(builder::backendOption);
        try (Flux2Pipeline pipeline = builder.build()) {
            System.out.printf(
                    Locale.ROOT,
                    "pipeline built in %.0f ms (provider %s, options %s)%n",
                    (System.nanoTime() - t0) / 1e6,
                    provider,
                    options);
            int n = 0;
            for (String s : sizes.split(",")) {
                int size = Integer.parseInt(s.trim());
                StageTimings first = generate(pipeline, size, n++);
                print("first", size, first);
                List<StageTimings> warm = new ArrayList<>();
                for (int i = 0; i < images; i++) {
                    warm.add(generate(pipeline, size, n++));
                }
                print("warm-median-of-" + images, size, median(warm));
                StringBuilder totals = new StringBuilder();
                warm.forEach(t -> totals.append(String.format(Locale.ROOT, " %.3f", seconds(t.total()))));
                System.out.printf(Locale.ROOT, "%dx%d warm totals (s):%s%n", size, size, totals);
            }
        }
    }

    private static StageTimings generate(Flux2Pipeline pipeline, int size, int n) {
        GenerationResult r = pipeline.generate(GenerationRequest.builder()
                .prompt("a red fox in the snow at dawn, photograph number " + n)
                .size(size, size)
                .seed(1000 + n)
                .build());
        return r.timings();
    }

    private static void print(String label, int size, StageTimings t) {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<Stage, Duration> e : t.perStage().entrySet()) {
            sb.append(String.format(
                    Locale.ROOT, " %s=%.3f", e.getKey().name().toLowerCase(Locale.ROOT), seconds(e.getValue())));
        }
        System.out.printf(
                Locale.ROOT,
                "RESULT image %dx%d %s:%s total=%.3f runtime=%.3f s%n",
                size,
                size,
                label,
                sb,
                seconds(t.total()),
                seconds(t.runtime()));
    }

    /** Per stage, total and runtime: the median over the images. */
    private static StageTimings median(List<StageTimings> all) {
        Map<Stage, Duration> stages = new EnumMap<>(Stage.class);
        for (Stage s : all.get(0).perStage().keySet()) {
            stages.put(s, medianOf(all.stream().map(t -> t.of(s)).toList()));
        }
        return new StageTimings(
                stages,
                medianOf(all.stream().map(StageTimings::total).toList()),
                medianOf(all.stream().map(StageTimings::runtime).toList()));
    }

    private static Duration medianOf(List<Duration> values) {
        List<Duration> sorted = new ArrayList<>(values);
        sorted.sort(null);
        int n = sorted.size();
        return n % 2 == 1
                ? sorted.get(n / 2)
                : sorted.get(n / 2 - 1).plus(sorted.get(n / 2)).dividedBy(2);
    }

    private static double seconds(Duration d) {
        return d.toNanos() / 1e9;
    }
}
