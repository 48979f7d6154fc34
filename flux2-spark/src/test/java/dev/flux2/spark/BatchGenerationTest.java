package dev.flux2.spark;

import static dev.flux2.spark.RequestSchemas.TYPED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.Flux2Pipeline;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.cli.Flux2Cli;
import dev.flux2.io.PngFiles;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import java.awt.image.BufferedImage;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.imageio.ImageIO;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@link Flux2Batch} end to end in Spark local mode ({@code local[2,2]}: two task slots, two attempts per task) on a
 * miniature synthetic bundle, every image compared pixel for pixel with a generation by a {@link Flux2Pipeline} in
 * this JVM. The last test stops Spark and checks that the plugin closed the one pipeline all batches shared.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BatchGenerationTest {
    @TempDir
    static Path work;

    private static SyntheticBundle bundle;
    private static SparkSession spark;
    private static Flux2Pipeline direct;
    private static int buildsBefore;

    @BeforeAll
    static void start() {
        bundle = SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), work.resolve("bundle"));
        buildsBefore = ExecutorPipelines.builds();
        spark = LocalSpark.start("local[2,2]");
        // The single-JVM reference: the CLI's own configuration (SEQUENTIAL), outside ExecutorPipelines.
        direct = Flux2Pipeline.builder().model(bundle.directory()).build();
    }

    @AfterAll
    static void stop() {
        WriteFaults.reset();
        if (direct != null) {
            direct.close();
        }
        if (spark != null) {
            spark.stop();
        }
    }

    @AfterEach
    void noFault() {
        WriteFaults.reset();
    }

    private static BatchOptions.Builder options(String output) {
        // Every batch of this class has the same pipeline key: they must all share one pipeline.
        return BatchOptions.builder(
                        bundle.directory().toString(), work.resolve(output).toString())
                .concurrency(2);
    }

    /** 40 rows: a third without seed, a quarter at 32×48, every fifth with 2 steps. */
    private static List<Row> fortyRows() {
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            rows.add(RowFactory.create(
                    String.format("r%02d", i),
                    "a red fox number " + i + (i % 7 == 0 ? ", snowy 雪" : ""),
                    i % 3 == 0 ? null : 1000L + i,
                    i % 4 == 1 ? 32 : null,
                    i % 4 == 1 ? 48 : null,
                    i % 5 == 2 ? 2 : null));
        }
        return rows;
    }

    private static BufferedImage expected(Row request) {
        GenerationRequest.Builder b = GenerationRequest.builder(request.getString(1));
        b.seed(request.isNullAt(2) ? RowId.derivedSeed(request.getString(0)) : request.getLong(2));
        if (!request.isNullAt(3)) {
            b.size(request.getInt(3), request.getInt(4));
        }
        if (!request.isNullAt(5)) {
            b.steps(request.getInt(5));
        }
        return direct.generate(b.build()).first().image();
    }

    private static Map<String, Row> byId(List<Row> results) {
        Map<String, Row> map = new HashMap<>();
        for (Row r : results) {
            map.put(r.getAs("id"), r);
        }
        return map;
    }

    private static void assertEveryImageMatches(List<Row> requests, Map<String, Row> results, Path images) {
        for (Row request : requests) {
            String id = request.getString(0);
            Row result = results.get(id);
            assertEquals(images.resolve(id + ".png"), Images.local(result.getAs("path")), id);
            long seed = request.isNullAt(2) ? RowId.derivedSeed(id) : request.getLong(2);
            assertEquals(seed, (long) result.<Long>getAs("seed"), id + ": the seed used is recorded");
            Images.assertSamePixels(expected(request), images.resolve(id + ".png"), id);
        }
    }

    private static void assertOnlyImages(Path images, int count) {
        List<String> names = Images.names(images);
        assertEquals(count, names.size(), "one file per id, nothing else: " + names);
        assertTrue(names.stream().allMatch(n -> n.endsWith(".png") && !n.startsWith(".")), names.toString());
    }

    @Test
    @Order(1)
    void fortyRowsOverFourPartitionsEqualSingleJvmGenerations() {
        List<Row> requests = fortyRows();
        Dataset<Row> results = Flux2Batch.generate(
                spark.createDataFrame(requests, TYPED),
                options("forty").partitions(4).build());
        assertEquals(4, results.rdd().getNumPartitions());
        assertEquals(ResultColumns.SCHEMA, results.schema());
        Map<String, Row> byId = byId(results.collectAsList());
        assertEquals(40, byId.size());
        for (Row r : byId.values()) {
            assertEquals("ok", r.getAs("status"), r.toString());
            assertNull(r.getAs("error"));
            assertTrue(r.<Double>getAs("total_ms") > 0, r.toString());
            assertTrue(r.<Double>getAs("denoise_ms") > 0, r.toString());
        }
        Row small = byId.get("r01");
        assertEquals(32, (int) small.<Integer>getAs("width"));
        assertEquals(48, (int) small.<Integer>getAs("height"));
        assertEquals(2, (int) byId.get("r02").<Integer>getAs("steps"));
        assertEquals(64, (int) byId.get("r00").<Integer>getAs("width"), "the model's default size");
        Path images = work.resolve("forty/images");
        assertOnlyImages(images, 40);
        assertEveryImageMatches(requests, byId, images);
        assertEquals(buildsBefore + 1, ExecutorPipelines.builds(), "one pipeline for the executor JVM");
    }

    @Test
    @Order(2)
    void aTaskThatFailedOnceLeavesNoPartialOrDuplicateFile() {
        List<String> writes = new CopyOnWriteArrayList<>();
        WriteFaults.install((id, temporary, attempt) -> {
            writes.add(id + "@" + attempt);
            if (id.value().equals("r17") && attempt == 0) {
                assertTrue(Files.isRegularFile(Images.local(temporary.toString())), "temporary file written");
                throw new IOException("injected fault after writing " + temporary.getName());
            }
        });
        List<Row> requests = fortyRows();
        Map<String, Row> byId = byId(Flux2Batch.generate(
                        spark.createDataFrame(requests, TYPED),
                        options("retried").partitions(4).build())
                .collectAsList());

        assertTrue(writes.contains("r17@0") && writes.contains("r17@1"), "failed once, then retried: " + writes);
        assertEquals(40, byId.size());
        for (Row r : byId.values()) {
            assertTrue(List.of("ok", "skipped").contains(r.<String>getAs("status")), r.toString());
        }
        assertEquals("ok", byId.get("r17").getAs("status"));
        Path images = work.resolve("retried/images");
        assertOnlyImages(images, 40);
        assertEveryImageMatches(requests, byId, images);
    }

    @Test
    @Order(3)
    void badRowsAreReportedAndGoodRowsDone() throws IOException {
        Path notAnImage = Files.writeString(work.resolve("not-an-image.png"), "hello");
        // Issue #33: a truncated JPEG decoded "successfully" (its missing rows grey) and the row was ok.
        Path truncatedJpeg = work.resolve("truncated.jpg");
        java.awt.image.BufferedImage noise =
                new java.awt.image.BufferedImage(64, 64, java.awt.image.BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < 64; y++) {
            for (int x = 0; x < 64; x++) {
                noise.setRGB(x, y, (x * 7919 + y * 104729) & 0xFFFFFF);
            }
        }
        ImageIO.write(noise, "jpg", truncatedJpeg.toFile());
        byte[] jpeg = Files.readAllBytes(truncatedJpeg);
        Files.write(truncatedJpeg, java.util.Arrays.copyOf(jpeg, jpeg.length / 2));
        StructType strings = new StructType()
                .add("id", DataTypes.StringType)
                .add("prompt", DataTypes.StringType)
                .add("seed", DataTypes.StringType)
                .add("width", DataTypes.StringType)
                .add("init_image", DataTypes.StringType)
                .add("comment", DataTypes.StringType);
        List<Row> rows = List.of(
                RowFactory.create("good-1", "a fox", "1", null, null, "fine"),
                RowFactory.create("bad-size", "a fox", "1", "1000", null, null),
                RowFactory.create("../evil", "a fox", "1", null, null, null),
                RowFactory.create(null, "a fox", "1", null, null, null),
                RowFactory.create("bad-seed", "a fox", "abc", null, null, null),
                RowFactory.create("no-prompt", null, "1", null, null, null),
                RowFactory.create(
                        "bad-image", "a fox", "1", null, notAnImage.toUri().toString(), null),
                RowFactory.create(
                        "no-image",
                        "a fox",
                        "1",
                        null,
                        work.resolve("missing.png").toString(),
                        null),
                RowFactory.create(
                        "truncated-jpeg",
                        "a fox",
                        "1",
                        null,
                        truncatedJpeg.toUri().toString(),
                        null),
                RowFactory.create("good-2", "a cat", null, "32", null, null));
        Map<String, Row> byId = byId(Flux2Batch.generate(
                        spark.createDataFrame(rows, strings), options("bad").build())
                .collectAsList());

        assertEquals("ok", byId.get("good-1").getAs("status"));
        assertEquals("ok", byId.get("good-2").getAs("status"));
        assertEquals(RowId.derivedSeed("good-2"), (long) byId.get("good-2").<Long>getAs("seed"));
        assertFailed(byId.get("bad-size"), "width must be a positive multiple of 16, got 1000");
        assertEquals(1000, (int) byId.get("bad-size").<Integer>getAs("width"), "the requested width is reported");
        assertFailed(byId.get("../evil"), "id must be 1 to 128 characters");
        assertFailed(byId.get(null), "id must be set, found null");
        assertFailed(byId.get("bad-seed"), "column seed must be a whole number, found \"abc\"");
        assertFailed(byId.get("no-prompt"), "column prompt must be set, found null");
        assertFailed(byId.get("bad-image"), "is not in a readable image format");
        assertFailed(byId.get("no-image"), "does not exist");
        assertFailed(byId.get("truncated-jpeg"), "is truncated or corrupt");
        assertTrue(
                byId.get("truncated-jpeg")
                        .<String>getAs("error")
                        .contains(truncatedJpeg.toUri().toString()),
                byId.get("truncated-jpeg").<String>getAs("error"));
        assertEquals(List.of("good-1.png", "good-2.png"), Images.names(work.resolve("bad/images")));
        assertFalse(Files.exists(work.resolve("bad/evil.png")) || Files.exists(work.resolve("evil.png")));
    }

    private static void assertFailed(Row r, String error) {
        assertEquals("failed", r.getAs("status"), r.toString());
        assertTrue(r.<String>getAs("error").contains(error), r.<String>getAs("error"));
        assertEquals(1, r.<String>getAs("error").lines().count(), "one line");
        assertNull(r.getAs("path"));
        assertNull(r.getAs("total_ms"));
    }

    @Test
    @Order(4)
    void initAndReferenceImagesAreReadThroughHadoop() throws IOException {
        Path init = work.resolve("init.png");
        Path reference = work.resolve("reference.png");
        ImageIO.write(expected(RowFactory.create("i", "a meadow", 5L, null, null, null)), "png", init.toFile());
        ImageIO.write(expected(RowFactory.create("r", "a mountain", 6L, 64, 80, null)), "png", reference.toFile());
        StructType schema = new StructType()
                .add("id", DataTypes.StringType)
                .add("prompt", DataTypes.StringType)
                .add("seed", DataTypes.LongType)
                .add("init_image", DataTypes.StringType)
                .add("strength", DataTypes.DoubleType)
                .add("reference_images", DataTypes.createArrayType(DataTypes.StringType));
        List<Row> rows = List.of(
                RowFactory.create(
                        "img2img", "a fox in a meadow", 11L, init.toUri().toString(), 0.6, null),
                RowFactory.create(
                        "edit", "the fox on the mountain", 12L, null, null, new String[] {reference.toString()}));
        Map<String, Row> byId = byId(Flux2Batch.generate(
                        spark.createDataFrame(rows, schema), options("images").build())
                .collectAsList());

        File initFile = init.toFile();
        BufferedImage img2img = direct.generate(GenerationRequest.builder("a fox in a meadow")
                        .seed(11)
                        .initImage(ImageIO.read(initFile))
                        .strength(0.6)
                        .build())
                .first()
                .image();
        BufferedImage edit = direct.generate(GenerationRequest.builder("the fox on the mountain")
                        .seed(12)
                        .addReferenceImage(ImageIO.read(reference.toFile()))
                        .build())
                .first()
                .image();
        assertEquals(
                "ok", byId.get("img2img").getAs("status"), byId.get("img2img").toString());
        assertEquals("ok", byId.get("edit").getAs("status"), byId.get("edit").toString());
        Images.assertSamePixels(img2img, work.resolve("images/images/img2img.png"), "img2img");
        Images.assertSamePixels(edit, work.resolve("images/images/edit.png"), "reference image");
        assertTrue(byId.get("img2img").<Double>getAs("vae_encode_ms") > 0);
    }

    @Test
    @Order(5)
    void theImageIsTheCliPngByteForByte() throws IOException {
        List<Row> rows = List.of(
                RowFactory.create("cli-1", "a red fox in the snow", 42L, 64, 48, null),
                RowFactory.create("cli-2", "雪の中のキツネ", 7L, null, null, 3));
        Flux2Batch.generate(spark.createDataFrame(rows, TYPED), options("cli").build())
                .collectAsList();
        for (Row r : rows) {
            Path cliPng = work.resolve("cli-" + r.getString(0) + ".png");
            List<String> args = new ArrayList<>(List.of(
                    "generate",
                    "--model",
                    bundle.directory().toString(),
                    "--prompt",
                    r.getString(1),
                    "--seed",
                    Long.toString(r.getLong(2)),
                    "--output",
                    cliPng.toString(),
                    "--no-progress"));
            if (!r.isNullAt(3)) {
                args.addAll(List.of("--width", "" + r.getInt(3), "--height", "" + r.getInt(4)));
            }
            if (!r.isNullAt(5)) {
                args.addAll(List.of("--steps", "" + r.getInt(5)));
            }
            StringWriter err = new StringWriter();
            CommandLine cli = Flux2Cli.newCommandLine();
            cli.setOut(new PrintWriter(new StringWriter()));
            cli.setErr(new PrintWriter(err));
            assertEquals(0, cli.execute(args.toArray(String[]::new)), err.toString());
            byte[] batch = Files.readAllBytes(work.resolve("cli/images/" + r.getString(0) + ".png"));
            assertTrue(java.util.Arrays.equals(Files.readAllBytes(cliPng), batch), r.getString(0) + ": same bytes");
        }
    }

    @Test
    @Order(6)
    void aSecondRunKeepsTheCompleteImagesOfTheSameRequests() throws IOException {
        List<Row> rows = List.of(
                RowFactory.create("again-1", "a fox", 1L, null, null, null),
                RowFactory.create("again-2", "a cat", 2L, null, null, null));
        BatchOptions opts = options("again").build();
        Flux2Batch.generate(spark.createDataFrame(rows, TYPED), opts).collectAsList();
        Path first = work.resolve("again/images/again-1.png");
        long modified = Files.getLastModifiedTime(first).toMillis();

        List<Row> changed = List.of(rows.get(0), RowFactory.create("again-2", "a dog", 2L, null, null, null));
        Map<String, Row> byId = byId(
                Flux2Batch.generate(spark.createDataFrame(changed, TYPED), opts).collectAsList());
        assertEquals("skipped", byId.get("again-1").getAs("status"));
        assertNull(byId.get("again-1").getAs("total_ms"), "nothing generated");
        assertEquals(64, (int) byId.get("again-1").<Integer>getAs("width"), "size read from the existing PNG");
        assertEquals(modified, Files.getLastModifiedTime(first).toMillis(), "not rewritten");
        assertEquals("ok", byId.get("again-2").getAs("status"), "another prompt under the same id: regenerated");
        try (var in = Files.newInputStream(work.resolve("again/images/again-2.png"))) {
            assertEquals("a dog", PngFiles.readTextEntries(in).get("prompt"));
        }
        assertOnlyImages(work.resolve("again/images"), 2);
    }

    @Test
    @Order(7)
    void failFastFailsTheJobNamingTheRow() {
        List<Row> rows = List.of(
                RowFactory.create("ff-1", "a fox", 1L, null, null, null),
                RowFactory.create("ff-bad", "a fox", 1L, 1000, 64, null));
        Dataset<Row> results = Flux2Batch.generate(
                spark.createDataFrame(rows, TYPED),
                options("failfast").failFast(true).build());
        Exception e = assertThrows(Exception.class, results::collectAsList);
        JobFailure failure = JobFailure.of(e);
        assertEquals(JobExitCodes.ROW_FAILED, failure.exitCode(), failure.message());
        assertTrue(failure.message().startsWith("row \"ff-bad\" failed (fail-fast): width must be"), failure.message());
        assertEquals(1, failure.message().lines().count());
    }

    @Test
    @Order(8)
    void repeatedIdsFailUpFront() {
        List<Row> rows = List.of(
                RowFactory.create("d1", "a", 1L, null, null, null),
                RowFactory.create("d2", "b", 1L, null, null, null),
                RowFactory.create("d1", "c", 1L, null, null, null));
        InvalidRequestException e = assertThrows(
                InvalidRequestException.class,
                () -> Flux2Batch.generate(
                        spark.createDataFrame(rows, TYPED), options("dups").build()));
        assertEquals("ids must be unique (each names its image file), found repeated \"d1\" (2 rows)", e.getMessage());
        assertFalse(Files.exists(work.resolve("dups/images/d1.png")));
    }

    @Test
    @Order(Integer.MAX_VALUE)
    void oneSharedPipelineForEveryBatchClosedWhenTheExecutorStops() {
        assertEquals(buildsBefore + 1, ExecutorPipelines.builds(), "built once in this executor JVM");
        assertEquals(1, ExecutorPipelines.open());
        spark.stop();
        spark = null;
        assertEquals(0, ExecutorPipelines.open(), "Flux2SparkPlugin closed it when the executor stopped");
    }
}
