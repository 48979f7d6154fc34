package dev.flux2.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flux2.testkit.FakeHub;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import sun.misc.Signal;

/** {@link Flux2BatchJob} in Spark local mode: each input format, the output layout, exit codes and messages. */
class Flux2BatchJobTest {
    /** The same three requests in every format; a2's prompt has a comma, a quote and a line break (CSV quoting). */
    private static final String JSONL = """
            {"id": "a1", "prompt": "a red fox", "seed": 1, "width": 64, "height": 48}
            {"id": "a2", "prompt": "a cat, \\"sitting\\"\\non a mat", "seed": 2, "steps": 2}
            {"id": "a3", "prompt": "a dog"}
            """;

    private static final String JSON = """
            [
              {"id": "a1", "prompt": "a red fox", "seed": 1, "width": 64, "height": 48},
              {"id": "a2", "prompt": "a cat, \\"sitting\\"\\non a mat", "seed": 2, "steps": 2},
              {"id": "a3", "prompt": "a dog"}
            ]
            """;
    private static final String CSV = """
            id,prompt,seed,width,height,steps
            a1,a red fox,1,64,48,
            a2,"a cat, ""sitting""
            on a mat",2,,,2
            a3,a dog,,,,
            """;

    @TempDir
    static Path work;

    private static SyntheticBundle bundle;
    private static SparkSession spark;

    private record Run(int code, String out, String err) {}

    @BeforeAll
    static void start() throws IOException {
        bundle = SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), work.resolve("bundle"));
        spark = LocalSpark.start("local[2]");
        Path inputs = Files.createDirectories(work.resolve("inputs"));
        Files.writeString(inputs.resolve("requests.jsonl"), JSONL);
        Files.writeString(inputs.resolve("requests.json"), JSON);
        // .json holding JSON Lines, as Spark itself writes .json files.
        Files.writeString(inputs.resolve("requests-lines.json"), JSONL);
        Files.writeString(inputs.resolve("requests.csv"), CSV);
        List<Row> rows = List.of(
                RowFactory.create("a1", "a red fox", 1L, 64, 48, null),
                RowFactory.create("a2", "a cat, \"sitting\"\non a mat", 2L, null, null, 2),
                RowFactory.create("a3", "a dog", null, null, null, null));
        spark.createDataFrame(rows, RequestSchemas.TYPED)
                .write()
                .parquet(inputs.resolve("requests.parquet").toString());
    }

    @AfterAll
    static void stop() {
        if (spark != null) {
            spark.stop();
        }
    }

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Flux2BatchJob.run(
                spark,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                args);
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static Run batch(String input, Path output, String... more) {
        List<String> args = new ArrayList<>(
                List.of("--model", bundle.directory().toString(), "--input", input, "--output", output.toString()));
        args.addAll(List.of(more));
        return run(args.toArray(String[]::new));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"requests.jsonl", "requests.json", "requests-lines.json", "requests.csv", "requests.parquet"})
    void eachInputFormatGivesTheSameImagesAndResults(String file) throws IOException {
        String format = file.substring(file.indexOf('.') + 1);
        Path output = work.resolve("out-" + file);
        Run run = batch(work.resolve("inputs/" + file).toString(), output);
        assertEquals(0, run.code(), run.err());
        assertTrue(run.out().startsWith("flux2-batch: 3 rows: 3 ok, 0 skipped, 0 failed; images in "), run.out());
        assertEquals(List.of("a1.png", "a2.png", "a3.png"), Images.names(output.resolve("images")));

        List<String> lines = Files.readAllLines(output.resolve("results.jsonl"));
        assertEquals(3, lines.size(), lines.toString());
        ObjectMapper json = new ObjectMapper();
        List<String> ids = new ArrayList<>();
        for (String line : lines) {
            JsonNode r = json.readTree(line);
            List<String> keys = new ArrayList<>();
            for (Iterator<String> it = r.fieldNames(); it.hasNext(); ) {
                keys.add(it.next());
            }
            assertEquals(ResultColumns.ALL, keys, "every column, nulls included, in schema order");
            assertEquals("ok", r.get("status").asText());
            assertTrue(r.get("error").isNull());
            ids.add(r.get("id").asText());
        }
        assertEquals(List.of("a1", "a2", "a3"), ids, "ordered by id");
        JsonNode a1 = json.readTree(lines.get(0));
        assertEquals(48, a1.get("height").asInt());
        assertEquals(2, json.readTree(lines.get(1)).get("steps").asInt());
        assertEquals(
                RowId.derivedSeed("a3"), json.readTree(lines.get(2)).get("seed").asLong());

        List<Row> parquet =
                spark.read().parquet(output.resolve("results").toString()).collectAsList();
        assertEquals(3, parquet.size());
        assertEquals(
                ResultColumns.SCHEMA,
                spark.read().parquet(output.resolve("results").toString()).schema());

        if (!file.equals("requests.jsonl")) {
            Path reference = work.resolve("out-requests.jsonl/images");
            if (Files.isDirectory(reference)) {
                for (String name : List.of("a1.png", "a2.png", "a3.png")) {
                    assertArrayEquals(
                            Files.readAllBytes(reference.resolve(name)),
                            Files.readAllBytes(output.resolve("images").resolve(name)),
                            format + " " + name + ": the same request gives the same file");
                }
            }
        }
    }

    @Test
    void failedRowsAreCountedAndStaleTemporaryFilesDeleted() throws IOException {
        Path input = Files.writeString(
                work.resolve("bad.csv"), "id,prompt,width\nok1,a fox,\nbad1,a fox,abc\nbad2,a fox,1000\n");
        Path output = work.resolve("out-bad");
        Files.createDirectories(output.resolve("images"));
        Files.writeString(output.resolve("images/.zz.png.t7-dead.tmp"), "left by a killed executor");
        Run run = batch(input.toString(), output);
        assertEquals(0, run.code(), run.err());
        assertTrue(run.out().contains("3 rows: 1 ok, 0 skipped, 2 failed"), run.out());
        assertTrue(run.out().contains("deleted 1 stale temporary file(s)"), run.out());
        assertEquals(List.of("ok1.png"), Images.names(output.resolve("images")));
        String results = Files.readString(output.resolve("results.jsonl"));
        assertTrue(results.contains("column width must be a whole number, found \\\"abc\\\""), results);
        assertTrue(results.contains("width must be a positive multiple of 16, got 1000"), results);
    }

    /**
     * Issue #33: Spark's JSON reader turns a lone surrogate escape into {@code ?}, so the row was generated as
     * {@code ?x} with status ok. The input check fails that row, as the CLI and the server refuse the prompt.
     */
    @Test
    void aLoneSurrogateInAJsonPromptFailsItsRow() throws IOException {
        Path input = Files.writeString(
                work.resolve("surrogate.jsonl"),
                "{\"id\": \"s1\", \"prompt\": \"\\ud800x\"}\n{\"id\": \"s2\", \"prompt\": \"a fox\"}\n");
        Path output = work.resolve("out-surrogate");
        Run run = batch(input.toString(), output);
        assertEquals(0, run.code(), run.err());
        assertTrue(run.out().contains("2 rows: 1 ok, 0 skipped, 1 failed"), run.out());
        assertEquals(List.of("s2.png"), Images.names(output.resolve("images")));
        String results = Files.readString(output.resolve("results.jsonl"));
        assertTrue(
                results.contains("column prompt must be valid Unicode text, but has an unpaired UTF-16 surrogate"
                        + " U+D800 at index 0"),
                results);
    }

    @Test
    void failFastExitsWith4NamingTheRow() throws IOException {
        Path input =
                Files.writeString(work.resolve("ff.jsonl"), "{\"id\": \"x1\", \"prompt\": \"p\", \"width\": 1000}\n");
        Run run = batch(input.toString(), work.resolve("out-ff"), "--fail-fast");
        assertEquals(4, run.code(), run.err());
        assertTrue(
                run.err().startsWith("flux2-batch: row \"x1\" failed (fail-fast): width must be a positive multiple"),
                run.err());
        assertEquals(1, run.err().strip().lines().count(), run.err());
    }

    @Test
    void unusableInputExitsWith2() throws IOException {
        Run missing = batch(work.resolve("none.jsonl").toString(), work.resolve("out-x"));
        assertEquals(2, missing.code());
        assertEquals(
                "flux2-batch: invalid input: input " + work.resolve("none.jsonl") + " does not exist",
                missing.err().strip());

        Path text = Files.writeString(work.resolve("requests.txt"), "id,prompt\n");
        Run unknown = batch(text.toString(), work.resolve("out-x"));
        assertEquals(2, unknown.code());
        assertTrue(unknown.err().contains("expected a name ending in .jsonl, .json, .csv or .parquet"), unknown.err());

        Path noPrompt = Files.writeString(work.resolve("noprompt.jsonl"), "{\"id\": \"a\", \"text\": \"p\"}\n");
        Run columns = batch(noPrompt.toString(), work.resolve("out-x"));
        assertEquals(2, columns.code());
        assertTrue(columns.err().contains("the requests have no prompt column"), columns.err());

        Path dups = Files.writeString(
                work.resolve("dups.jsonl"), "{\"id\": \"a\", \"prompt\": \"p\"}\n{\"id\": \"a\", \"prompt\": \"q\"}\n");
        Run repeated = batch(dups.toString(), work.resolve("out-x"));
        assertEquals(2, repeated.code());
        assertTrue(repeated.err().contains("found repeated \"a\" (2 rows)"), repeated.err());
        for (Run r : List.of(missing, unknown, columns, repeated)) {
            assertEquals(1, r.err().strip().lines().count(), r.err());
        }
        assertFalse(Files.exists(work.resolve("out-x/images/a.png")));
    }

    @Test
    void aSignalClosesThePipelinesBeforeTheJvmExits() throws IOException {
        Path input = Files.writeString(work.resolve("signal.jsonl"), "{\"id\": \"s1\", \"prompt\": \"p\"}\n");
        assertEquals(0, batch(input.toString(), work.resolve("out-signal")).code());
        assertTrue(ExecutorSignals.installed(), "the plugin's executor side installed the handlers");
        assertTrue(ExecutorPipelines.open() > 0, "the executor's pipeline is open");
        List<String> passedOn = new ArrayList<>();
        try {
            ExecutorSignals.onSignal(new Signal("TERM"), s -> passedOn.add(s.getName()));
            assertEquals(0, ExecutorPipelines.open(), "closed on the signal, before any shutdown hook");
            assertEquals(List.of("TERM"), passedOn, "then the signal goes to the handler it replaced");
            assertEquals(
                    Optional.of("TERM"), ExecutorSignals.received().map(Signal::getName), "the job reports it (143)");
        } finally {
            ExecutorSignals.clearReceived();
        }
    }

    @Test
    void aRepoIdIsResolvedIntoTheHubCacheAndGivesTheFolderImages() throws IOException {
        String repo = "tester/flux2-synthetic";
        String commit = "feedc0de00000000000000000000000000000002";
        Path input = work.resolve("inputs/requests.jsonl");
        Path byFolder = work.resolve("out-hub-folder");
        assertEquals(0, batch(input.toString(), byFolder).code());
        Path cache = work.resolve("hub-cache");
        Path byName = work.resolve("out-hub-name");
        try (FakeHub hub = new FakeHub().publish(repo, commit, bundle.directory())) {
            BatchOptions options = BatchOptions.builder(repo + "@" + commit, byName.toString())
                    .hubCacheDir(cache.toString())
                    .hubEndpoint(hub.endpoint().toString())
                    .build();
            List<Row> results = Flux2Batch.generate(InputFormat.read(spark, input.toString()), options)
                    .collectAsList();
            assertEquals(3, results.size());
            results.forEach(r -> assertEquals("ok", r.getAs("status"), r.toString()));
            assertTrue(hub.requests().size() > 1, "fetched from the hub");
        }
        assertTrue(Files.isDirectory(cache.resolve("models--tester--flux2-synthetic/snapshots/" + commit)));
        for (String name : List.of("a1.png", "a2.png", "a3.png")) {
            assertArrayEquals(
                    Files.readAllBytes(byFolder.resolve("images").resolve(name)),
                    Files.readAllBytes(byName.resolve("images").resolve(name)),
                    name + ": the repo id names the same model as the folder");
        }
    }

    /**
     * Spark's JSON inference turns a column that is an array in one row and a string in another into strings,
     * keeping the array's JSON text; both forms must give the same paths, in JSONL and in CSV.
     */
    @Test
    void referenceImagesAsAnArrayInOneRowAndAStringInAnotherAreBothRead() throws IOException {
        Path jsonl = Files.writeString(work.resolve("mixed.jsonl"), """
                {"id": "m1", "prompt": "p", "reference_images": ["a.png", "dir/b, c.png"]}
                {"id": "m2", "prompt": "p", "reference_images": "a.png, d.png"}
                {"id": "m3", "prompt": "p"}
                """);
        Path csv = Files.writeString(work.resolve("mixed.csv"), """
                id,prompt,reference_images
                m1,p,"[""a.png"", ""dir/b, c.png""]"
                m2,p,"a.png, d.png"
                m3,p,
                """);
        for (Path input : List.of(jsonl, csv)) {
            org.apache.spark.sql.Dataset<Row> requests = InputFormat.read(spark, input.toString());
            RequestLayout layout = RequestLayout.of(requests.schema());
            List<Row> rows = requests.selectExpr(layout.columns().toArray(String[]::new))
                    .orderBy("id")
                    .collectAsList();
            assertEquals(
                    List.of("a.png", "dir/b, c.png"), layout.read(rows.get(0)).referenceImages(), input + " m1");
            assertEquals(List.of("a.png", "d.png"), layout.read(rows.get(1)).referenceImages(), input + " m2");
            assertEquals(List.of(), layout.read(rows.get(2)).referenceImages(), input + " m3");
        }
    }

    @Test
    void aMissingModelExitsWith3() throws IOException {
        Path input = Files.writeString(work.resolve("one.jsonl"), "{\"id\": \"m1\", \"prompt\": \"p\"}\n");
        Run run = run(
                "--model",
                work.resolve("no-model").toString(),
                "--input",
                input.toString(),
                "--output",
                work.resolve("out-m").toString());
        assertEquals(3, run.code(), run.err());
        assertTrue(
                run.err()
                        .startsWith("flux2-batch: model error: model folder " + work.resolve("no-model")
                                + " does not exist"),
                run.err());
        assertTrue(run.err().contains("(on host "), run.err());
        assertEquals(1, run.err().strip().lines().count(), run.err());
        // Found by the driver before the job started: no task ran, so nothing was written.
        assertFalse(Files.exists(work.resolve("out-m")), "the job started before the model was checked");
    }
}
