package dev.flux2.bench.profile;

import dev.flux2.Flux2Pipeline;
import dev.flux2.api.GenerationControls;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.MemoryPolicy;
import dev.flux2.api.PreviewOptions;
import dev.flux2.api.ProgressEvent;
import dev.flux2.api.Stage;
import dev.flux2.bench.support.BenchBundle;
import dev.flux2.testkit.timing.TimingTransformerSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a linear live preview after every step costs (issue #31: ≤ 2 % of a step on the CPU at 512²), on the timing
 * bundle (its transformer step at full width, 1 + 1 blocks; docs/performance.md): generations with and without
 * {@code PreviewOptions.linear(1)}, alternating, in one RESIDENT pipeline after a warm-up that fits the projection.
 * Reports the mean step time of each, and the preview's own time per step: from the step's progress event to the
 * listener's call, i.e. the rendering (projection, conversion); x̂₀ = x − σ·v before the Euler update is part of the
 * step time. Run: {@code java -cp flux2-bench/target/flux2-bench.jar dev.flux2.bench.profile.PreviewOverhead
 * [--pairs N] [--size PX]}.
 */
public final class PreviewOverhead {
    private PreviewOverhead() {}

    /**
     * @param args {@code --pairs N} (default 3), {@code --size PX} (default 512)
     */
    public static void main(String[] args) {
        int pairs = 3;
        int size = 512;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--pairs" -> pairs = Integer.parseInt(args[i + 1]);
                case "--size" -> size = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        try (BenchBundle bundle =
                        BenchBundle.timing(TimingTransformerSpec.builder().build(), size);
                Flux2Pipeline pipeline = Flux2Pipeline.builder()
                        .model(bundle.directory())
                        .memoryPolicy(MemoryPolicy.RESIDENT)
                        .build()) {
            GenerationRequest request = GenerationRequest.builder("a preview")
                    .size(size, size)
                    .steps(4)
                    .seed(1)
                    .build();
            Sample warm = generate(pipeline, request, true);
            System.out.printf(Locale.ROOT, "warm-up (fits the projection): %.0f ms%n", warm.wallMs);
            List<Sample> off = new ArrayList<>();
            List<Sample> on = new ArrayList<>();
            for (int p = 0; p < pairs; p++) {
                boolean previewFirst = p % 2 == 1;
                Sample a = generate(pipeline, request, previewFirst);
                Sample b = generate(pipeline, request, !previewFirst);
                (previewFirst ? on : off).add(a);
                (previewFirst ? off : on).add(b);
                System.out.printf(
                        Locale.ROOT,
                        "pair %d: step %.1f ms without, %.1f ms with previews (render %.2f ms per preview)%n",
                        p + 1,
                        (previewFirst ? b : a).meanStepMs(),
                        (previewFirst ? a : b).meanStepMs(),
                        (previewFirst ? a : b).meanRenderMs());
            }
            double stepOff =
                    off.stream().mapToDouble(Sample::meanStepMs).average().orElseThrow();
            double stepOn =
                    on.stream().mapToDouble(Sample::meanStepMs).average().orElseThrow();
            double render =
                    on.stream().mapToDouble(Sample::meanRenderMs).average().orElseThrow();
            System.out.printf(
                    Locale.ROOT,
                    "%d² on %d processor(s): step %.1f ms without previews, %.1f ms with (%+.2f %%); rendering a"
                            + " linear preview %.2f ms = %.3f %% of a step%n",
                    size,
                    Runtime.getRuntime().availableProcessors(),
                    stepOff,
                    stepOn,
                    100 * (stepOn - stepOff) / stepOff,
                    render,
                    100 * render / stepOff);
        }
    }

    /** One generation's step intervals and preview render times. */
    private record Sample(double wallMs, List<Double> stepMs, List<Double> renderMs) {
        double meanStepMs() {
            return stepMs.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
        }

        double meanRenderMs() {
            return renderMs.stream().mapToDouble(Double::doubleValue).average().orElse(0);
        }
    }

    private static Sample generate(Flux2Pipeline pipeline, GenerationRequest request, boolean previews) {
        List<Double> steps = new ArrayList<>();
        List<Double> renders = new ArrayList<>();
        long[] last = {0};
        long[] advanced = {0};
        GenerationControls controls = GenerationControls.none().withProgress((ProgressEvent e) -> {
            if (e.stage() != Stage.DENOISE) {
                return;
            }
            long now = System.nanoTime();
            if (e.kind() == ProgressEvent.Kind.STARTED) {
                last[0] = now;
            } else if (e.kind() == ProgressEvent.Kind.ADVANCED) {
                // the first interval includes opening the session; the later ones are one step (and a preview)
                if (e.completed() > 1) {
                    steps.add((now - last[0]) / 1e6);
                }
                last[0] = now;
                advanced[0] = now;
            }
        });
        if (previews) {
            controls = controls.withPreviews(
                    PreviewOptions.linear(1), preview -> renders.add((System.nanoTime() - advanced[0]) / 1e6));
        }
        long start = System.nanoTime();
        pipeline.generate(request, controls);
        return new Sample((System.nanoTime() - start) / 1e6, steps, renders);
    }
}
