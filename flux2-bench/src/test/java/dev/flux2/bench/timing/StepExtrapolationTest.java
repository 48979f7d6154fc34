package dev.flux2.bench.timing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

class StepExtrapolationTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String STEP = "dev.flux2.bench.timing.TimingTransformerStepBenchmark.step";

    @Test
    void blockCostsComeFromTheLayoutDifferences() {
        ArrayNode results = JSON.createArrayNode();
        results.add(record(STEP, "klein", "1+1", 1000, "ms/op"));
        results.add(record(STEP, "klein", "2+1", 1.6, "s/op"));
        results.add(record(STEP, "klein", "1+2", 1300, "ms/op"));
        // Other widths and benchmarks are ignored.
        results.add(record(STEP, "tiny", "1+1", 5, "ms/op"));
        results.add(record("dev.flux2.bench.stages.TransformerStepBenchmark.step", "klein", "1+1", 1, "ms/op"));

        StepExtrapolation.Estimate e = StepExtrapolation.estimate(results, "klein");
        // d = 1600 − 1000, s = 1300 − 1000, e = 1000 − d − s; real = e + 5d + 20s.
        assertEquals(600, e.doubleMs(), 1e-9);
        assertEquals(300, e.singleMs(), 1e-9);
        assertEquals(100, e.embedMs(), 1e-9);
        assertEquals(100 + 5 * 600 + 20 * 300, e.realStepMs(), 1e-9);
        assertEquals(512, e.size());
    }

    @Test
    void shotsGiveTheMeanAndThePropagatedStandardError() {
        ArrayNode results = JSON.createArrayNode();
        results.add(withShots(record(STEP, "klein", "1+1", 0, "ms/op"), 990, 1010));
        results.add(withShots(record(STEP, "klein", "2+1", 0, "ms/op"), 1600, 1600));
        results.add(withShots(record(STEP, "klein", "1+2", 0, "ms/op"), 1290, 1310));
        StepExtrapolation.Estimate e = StepExtrapolation.estimate(results, "klein");
        assertEquals(1000, e.oneAndOneMs(), 1e-9);
        assertEquals(600, e.doubleMs(), 1e-9);
        assertEquals(300, e.singleMs(), 1e-9);
        // Two shots ±10 have a standard error of 10; real = 4·t21 + 19·t12 − 22·t11.
        assertEquals(Math.sqrt(22 * 22 * 100 + 19 * 19 * 100), e.realStepErrorMs(), 1e-9);
    }

    @Test
    void aMissingLayoutIsNamed() {
        ArrayNode results = JSON.createArrayNode();
        results.add(record(STEP, "klein", "1+1", 1000, "ms/op"));
        results.add(record(STEP, "klein", "2+1", 1600, "ms/op"));
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> StepExtrapolation.estimate(results, "klein"));
        assertTrue(e.getMessage().contains("blocks=1+2"), e.getMessage());
    }

    @Test
    void specParsesWidthAndLayout() {
        assertEquals(3072, TimingTransformerStepBenchmark.spec("klein", "2+1").hidden());
        assertEquals(2, TimingTransformerStepBenchmark.spec("klein", "2+1").doubleBlocks());
        assertEquals(3, TimingTransformerStepBenchmark.spec("tiny", "1+3").singleBlocks());
        assertEquals(256, TimingTransformerStepBenchmark.spec("tiny", "1+1").hidden());
        assertThrows(IllegalArgumentException.class, () -> TimingTransformerStepBenchmark.spec("huge", "1+1"));
        assertThrows(IllegalArgumentException.class, () -> TimingTransformerStepBenchmark.spec("klein", "1"));
    }

    private static JsonNode withShots(JsonNode record, double... shots) {
        ArrayNode fork =
                ((ObjectNode) record.get("primaryMetric")).putArray("rawData").addArray();
        for (double v : shots) {
            fork.add(v);
        }
        return record;
    }

    private static JsonNode record(String benchmark, String width, String blocks, double score, String unit) {
        ObjectNode r = JSON.createObjectNode();
        r.put("benchmark", benchmark);
        ObjectNode params = r.putObject("params");
        params.put("width", width);
        params.put("blocks", blocks);
        params.put("size", "512");
        ObjectNode metric = r.putObject("primaryMetric");
        metric.put("score", score);
        metric.put("scoreUnit", unit);
        return r;
    }
}
