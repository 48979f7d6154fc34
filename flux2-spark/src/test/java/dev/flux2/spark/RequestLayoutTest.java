package dev.flux2.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.InvalidRequestException;
import java.math.BigDecimal;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.expressions.GenericRowWithSchema;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/** Schema checks on the driver and row parsing on the executors, without Spark running. */
class RequestLayoutTest {
    private static StructType schema(Object... nameTypePairs) {
        StructField[] fields = new StructField[nameTypePairs.length / 2];
        for (int i = 0; i < fields.length; i++) {
            fields[i] = DataTypes.createStructField(
                    (String) nameTypePairs[2 * i], (DataType) nameTypePairs[2 * i + 1], true);
        }
        return new StructType(fields);
    }

    private static Row row(RequestLayout layout, StructType full, Object... values) {
        // The layout reads rows of its own columns, in its order, as Flux2Batch selects them.
        Object[] selected = new Object[layout.columns().size()];
        for (int i = 0; i < selected.length; i++) {
            selected[i] = values[full.fieldIndex(layout.columns().get(i))];
        }
        return new GenericRowWithSchema(selected, null);
    }

    @Test
    void aLoneSurrogateInThePromptIsRefusedNotTurnedIntoAQuestionMark() {
        StructType full = schema("id", DataTypes.StringType, "prompt", DataTypes.StringType);
        RequestLayout layout = RequestLayout.of(full);
        InvalidRequestException e = assertThrows(
                InvalidRequestException.class, () -> layout.read(row(layout, full, "r1", "a fox \uD83E in snow")));
        assertEquals(
                "column prompt must be valid Unicode text, but has an unpaired UTF-16 surrogate U+D83E at index 6"
                        + " (it would become '?' and another prompt would be generated)",
                e.getMessage());
        assertThrows(InvalidRequestException.class, () -> layout.read(row(layout, full, "r2", "\uDD8A tail")));
        assertEquals(
                "a fox \uD83E\uDD8A",
                layout.read(row(layout, full, "r3", "a fox \uD83E\uDD8A")).prompt());
    }

    @Test
    void idAndPromptAreRequired() {
        InvalidRequestException e = assertThrows(
                InvalidRequestException.class,
                () -> RequestLayout.of(schema("id", DataTypes.StringType, "text", DataTypes.StringType)));
        assertTrue(e.getMessage().contains("no prompt column"), e.getMessage());
        assertTrue(e.getMessage().contains("[id, text]"), e.getMessage());
    }

    @Test
    void wrongTypesNameTheColumnTheExpectedAndTheFound() {
        InvalidRequestException id = assertThrows(
                InvalidRequestException.class,
                () -> RequestLayout.of(schema("id", DataTypes.LongType, "prompt", DataTypes.StringType)));
        assertEquals("column id must be string, found bigint", id.getMessage());
        InvalidRequestException width = assertThrows(
                InvalidRequestException.class,
                () -> RequestLayout.of(schema(
                        "id", DataTypes.StringType, "prompt", DataTypes.StringType, "width", DataTypes.BooleanType)));
        assertEquals("column width must be a numeric type or string, found boolean", width.getMessage());
        InvalidRequestException refs = assertThrows(
                InvalidRequestException.class,
                () -> RequestLayout.of(schema(
                        "id",
                        DataTypes.StringType,
                        "prompt",
                        DataTypes.StringType,
                        "reference_images",
                        DataTypes.createArrayType(DataTypes.LongType))));
        assertEquals("column reference_images must be array<string> or string, found array<bigint>", refs.getMessage());
    }

    @Test
    void columnsComeInCanonicalOrderAndOthersAreIgnored() {
        RequestLayout layout = RequestLayout.of(schema(
                "seed",
                DataTypes.LongType,
                "sku",
                DataTypes.StringType,
                "prompt",
                DataTypes.StringType,
                "id",
                DataTypes.StringType));
        assertEquals(List.of("id", "prompt", "seed"), layout.columns());
        assertEquals(List.of("sku"), layout.ignoredColumns());
    }

    @Test
    void typedValuesAreRead() {
        StructType s = schema(
                "id", DataTypes.StringType,
                "prompt", DataTypes.StringType,
                "seed", DataTypes.LongType,
                "width", DataTypes.IntegerType,
                "height", DataTypes.DoubleType,
                "steps", DataTypes.createDecimalType(10, 0),
                "guidance", DataTypes.FloatType,
                "init_image", DataTypes.StringType,
                "strength", DataTypes.DoubleType,
                "reference_images", DataTypes.createArrayType(DataTypes.StringType));
        RequestLayout layout = RequestLayout.of(s);
        scala.collection.immutable.Seq<String> refs = scala.jdk.javaapi.CollectionConverters.asScala(
                        List.of("a.png", " b.png "))
                .toList();
        RowRequest r = layout.read(
                row(layout, s, "p1", "a fox", 42L, 64, 48.0, new BigDecimal("3"), 2.5f, " in.png ", 0.5, refs));
        assertEquals("p1", r.id().value());
        assertEquals("a fox", r.prompt());
        assertEquals(42L, r.seed());
        assertEquals(64, r.width());
        assertEquals(48, r.height());
        assertEquals(3, r.steps());
        assertEquals(2.5, r.guidance());
        assertEquals("in.png", r.initImage());
        assertEquals(0.5, r.strength());
        assertEquals(List.of("a.png", "b.png"), r.referenceImages());
        assertEquals(42L, r.effectiveSeed());
    }

    @Test
    void stringValuesAreParsedAsCsvGivesThem() {
        StructType s = schema(
                "id", DataTypes.StringType,
                "prompt", DataTypes.StringType,
                "seed", DataTypes.StringType,
                "width", DataTypes.StringType,
                "guidance", DataTypes.StringType,
                "reference_images", DataTypes.StringType);
        RequestLayout layout = RequestLayout.of(s);
        RowRequest r = layout.read(row(layout, s, "p2", "", " 7 ", "64", "1.5", "a.png, hdfs://nn/b.png,"));
        assertEquals("", r.prompt(), "an empty prompt is a prompt");
        assertEquals(7L, r.seed());
        assertEquals(64, r.width());
        assertEquals(1.5, r.guidance());
        assertEquals(List.of("a.png", "hdfs://nn/b.png"), r.referenceImages());

        RowRequest blank = layout.read(row(layout, s, "p3", "x", null, " ", null, null));
        assertNull(blank.seed());
        assertNull(blank.width());
        assertEquals(RowId.derivedSeed("p3"), blank.effectiveSeed(), "no seed: derived from the id");
    }

    @Test
    void aJsonArrayInAStringColumnIsReadAsPathsAndAMalformedOneIsRefused() {
        // What Spark's JSON inference leaves of an array when another row holds a string there.
        StructType s = schema(
                "id", DataTypes.StringType, "prompt", DataTypes.StringType, "reference_images", DataTypes.StringType);
        RequestLayout layout = RequestLayout.of(s);
        assertEquals(
                List.of("a.png", "b, c.png"),
                layout.read(row(layout, s, "j1", "p", " [\"a.png\", \" b, c.png \"]"))
                        .referenceImages());
        assertEquals(List.of(), layout.read(row(layout, s, "j2", "p", "[]")).referenceImages());
        assertEquals(
                "column reference_images starts with '[' but is not a JSON array of paths: \"[a.png, b.png\""
                        + " (write an array of strings, or comma-separated paths)",
                assertThrows(
                                InvalidRequestException.class,
                                () -> layout.read(row(layout, s, "j3", "p", "[a.png, b.png")))
                        .getMessage());
        assertEquals(
                "column reference_images must hold paths, found the element \"3\" in \"[\\\"a.png\\\", 3]\"",
                assertThrows(
                                InvalidRequestException.class,
                                () -> layout.read(row(layout, s, "j4", "p", "[\"a.png\", 3]")))
                        .getMessage());
        assertEquals(
                "column reference_images must hold paths, found an empty element in \"[\\\" \\\"]\"",
                assertThrows(InvalidRequestException.class, () -> layout.read(row(layout, s, "j5", "p", "[\" \"]")))
                        .getMessage());
    }

    @Test
    void badValuesNameTheColumnAndTheValue() {
        StructType s = schema(
                "id", DataTypes.StringType,
                "prompt", DataTypes.StringType,
                "seed", DataTypes.StringType,
                "width", DataTypes.LongType,
                "steps", DataTypes.DoubleType,
                "guidance", DataTypes.StringType);
        RequestLayout layout = RequestLayout.of(s);
        assertEquals(
                "column seed must be a whole number, found \"abc\"",
                assertThrows(
                                InvalidRequestException.class,
                                () -> layout.read(row(layout, s, "a", "p", "abc", null, null, null)))
                        .getMessage());
        assertEquals(
                "column width must be in [-2147483648, 2147483647], found \"4294967296\"",
                assertThrows(
                                InvalidRequestException.class,
                                () -> layout.read(row(layout, s, "a", "p", null, 4294967296L, null, null)))
                        .getMessage());
        assertEquals(
                "column steps must be a whole number, found \"2.5\"",
                assertThrows(
                                InvalidRequestException.class,
                                () -> layout.read(row(layout, s, "a", "p", null, null, 2.5, null)))
                        .getMessage());
        assertEquals(
                "column guidance must be a finite number, found \"NaN\"",
                assertThrows(
                                InvalidRequestException.class,
                                () -> layout.read(row(layout, s, "a", "p", null, null, null, "NaN")))
                        .getMessage());
        assertEquals(
                "column prompt must be set, found null",
                assertThrows(
                                InvalidRequestException.class,
                                () -> layout.read(row(layout, s, "a", null, null, null, null, null)))
                        .getMessage());
        InvalidRequestException id = assertThrows(
                InvalidRequestException.class, () -> layout.read(row(layout, s, "../x", "p", null, null, null, null)));
        assertTrue(id.getMessage().startsWith("id must be"), id.getMessage());
        assertEquals("../x", layout.rawId(row(layout, s, "../x", "p", null, null, null, null)));
    }
}
