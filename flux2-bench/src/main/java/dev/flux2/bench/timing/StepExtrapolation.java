package dev.flux2.bench.timing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flux2.testkit.timing.TimingTransformerSpec;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Scales the measured cost of one block to the real transformer. From the step times t(D+S) of the timing graph
 * with 1+1, 2+1 and 1+2 blocks (same width, same 512×512 input): one double-stream block costs
 * {@code d = t(2+1) − t(1+1)}, one single-stream block {@code s = t(1+2) − t(1+1)}, and everything else (timestep
 * embedding, modulations, x/context embedders, RoPE, final norm and projection, I/O) {@code e = t(1+1) − d − s};
 * the real step is estimated as {@code e + 5·d + 20·s = 4·t(2+1) + 19·t(1+2) − 22·t(1+1)}. Its standard error
 * is propagated from the standard errors of the three means (the spread of the measured shots).
 *
 * <p>Usage: {@code java -cp benchmarks.jar dev.flux2.bench.timing.StepExtrapolation results.json}.
 */
public final class StepExtrapolation {
    private static final String BENCHMARK = TimingTransformerStepBenchmark.class.getName() + ".step";

    private StepExtrapolation() {}

    /**
     * The three block costs and the extrapolated step.
     *
     * @param width the timing graph width measured
     * @param size image side in pixels
     * @param embedMs e: everything but the blocks
     * @param doubleMs d: one double-stream block
     * @param singleMs s: one single-stream block
     * @param oneAndOneMs the measured 1+1 step
     * @param realStepErrorMs standard error of {@link #realStepMs()}
     */
    public record Estimate(
            String width,
            int size,
            double embedMs,
            double doubleMs,
            double singleMs,
            double oneAndOneMs,
            double realStepErrorMs) {
        /** @return e + 5·d + 20·s, the estimated real step in ms */
        public double realStepMs() {
            return embedMs
                    + TimingTransformerSpec.KLEIN_DOUBLE_BLOCKS * doubleMs
                    + TimingTransformerSpec.KLEIN_SINGLE_BLOCKS * singleMs;
        }
    }

    /**
     * @param results JMH JSON results holding the three layouts of {@link TimingTransformerStepBenchmark}
     * @param width the width to use ({@code klein})
     * @return the estimate
     * @throws IllegalArgumentException when a layout is missing
     */
    public static Estimate estimate(JsonNode results, String width) {
        Map<String, Double> byLayout = new HashMap<>();
        Map<String, Double> errors = new HashMap<>();
        int size = -1;
        for (JsonNode r : results) {
            JsonNode params = r.path("params");
            if (!BENCHMARK.equals(r.path("benchmark").asText())
                    || !width.equals(params.path("width").asText())) {
                continue;
            }
            size = params.path("size").asInt();
            String unit = r.path("primaryMetric").path("scoreUnit").asText();
            double[] shots = shots(r.path("primaryMetric").path("rawData"), unit);
            String layout = params.path("blocks").asText();
            if (shots.length == 0) {
                byLayout.put(
                        layout, toMillis(r.path("primaryMetric").path("score").asDouble(), unit));
                errors.put(layout, 0.0);
            } else {
                byLayout.put(layout, mean(shots));
                errors.put(layout, standardError(shots));
            }
        }
        for (String layout : new String[] {"1+1", "2+1", "1+2"}) {
            if (!byLayout.containsKey(layout)) {
                throw new IllegalArgumentException("no " + BENCHMARK + " result for width=" + width + " blocks="
                        + layout + " (found " + byLayout.keySet() + ")");
            }
        }
        double base = byLayout.get("1+1");
        double d = byLayout.get("2+1") - base;
        double s = byLayout.get("1+2") - base;
        double error = Math.sqrt(
                square(22 * errors.get("1+1")) + square(4 * errors.get("2+1")) + square(19 * errors.get("1+2")));
        return new Estimate(width, size, base - d - s, d, s, base, error);
    }

    private static double[] shots(JsonNode rawData, String unit) {
        List<Double> values = new ArrayList<>();
        for (JsonNode fork : rawData) {
            for (JsonNode v : fork) {
                values.add(toMillis(v.asDouble(), unit));
            }
        }
        return values.stream().mapToDouble(Double::doubleValue).toArray();
    }

    private static double mean(double[] v) {
        double sum = 0;
        for (double x : v) {
            sum += x;
        }
        return sum / v.length;
    }

    private static double standardError(double[] v) {
        if (v.length < 2) {
            return 0;
        }
        double m = mean(v);
        double ss = 0;
        for (double x : v) {
            ss += (x - m) * (x - m);
        }
        return Math.sqrt(ss / (v.length - 1) / v.length);
    }

    private static double square(double x) {
        return x * x;
    }

    private static double toMillis(double score, String unit) {
        switch (unit) {
            case "ms/op":
                return score;
            case "s/op":
                return score * 1000;
            case "us/op":
                return score / 1000;
            default:
                throw new IllegalArgumentException("unexpected score unit " + unit);
        }
    }

    /**
     * @param args the JMH JSON results file, optionally the width (default {@code klein})
     * @throws IOException if the file cannot be read
     */
    public static void main(String[] args) throws IOException {
        if (args.length < 1) {
            System.err.println("usage: StepExtrapolation <jmh-results.json> [klein|tiny]");
            System.exit(2);
        }
        Estimate e =
                estimate(new ObjectMapper().readTree(Path.of(args[0]).toFile()), args.length > 1 ? args[1] : "klein");
        print(e, System.out);
    }

    /**
     * @param e the estimate
     * @param out where to print it
     */
    public static void print(Estimate e, PrintStream out) {
        out.printf(Locale.ROOT, "timing transformer (%s width) at %dx%d, one step:%n", e.width(), e.size(), e.size());
        out.printf(Locale.ROOT, "  measured 1+1 blocks                 %10.0f ms%n", e.oneAndOneMs());
        out.printf(Locale.ROOT, "  e  embedders, modulation, output    %10.0f ms%n", e.embedMs());
        out.printf(Locale.ROOT, "  d  one double-stream block          %10.0f ms%n", e.doubleMs());
        out.printf(Locale.ROOT, "  s  one single-stream block          %10.0f ms%n", e.singleMs());
        out.printf(
                Locale.ROOT,
                "  real step e + 5d + 20s              %10.0f ms ± %.0f (1 s.e.)%n",
                e.realStepMs(),
                e.realStepErrorMs());
        out.printf(
                Locale.ROOT,
                "  real 4-step denoise                 %10.0f ms ± %.0f%n",
                4 * e.realStepMs(),
                4 * e.realStepErrorMs());
    }
}
