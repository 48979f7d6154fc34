package dev.flux2.spark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.api.UnicodeText;
import java.io.Serializable;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.NumericType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Which {@link RequestColumns request columns} an input has and how to read them. Made on the driver from the
 * input's schema, which it checks; used on the executors on rows that hold exactly {@link #columns()}, in that
 * order. Immutable.
 */
final class RequestLayout implements Serializable {
    private static final long serialVersionUID = 1L;

    /** How a column's values are stored. */
    enum Kind {
        /** Strings (numbers are parsed). */
        STRING,
        /** Any numeric type. */
        NUMBER,
        /** An array of strings. */
        STRING_ARRAY,
        /** Only nulls (a column JSON inference found empty). */
        NULL
    }

    private static final Set<String> TEXT_COLUMNS =
            Set.of(RequestColumns.ID, RequestColumns.PROMPT, RequestColumns.INIT_IMAGE);
    private static final Set<String> NUMBER_COLUMNS = Set.of(
            RequestColumns.SEED,
            RequestColumns.WIDTH,
            RequestColumns.HEIGHT,
            RequestColumns.STEPS,
            RequestColumns.GUIDANCE,
            RequestColumns.STRENGTH);

    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<String> columns;
    private final Kind[] kinds;
    /** Index in {@link #columns} of each {@link RequestColumns#ALL} column, or -1. */
    private final int[] index;

    private final List<String> ignored;

    /** Rows the input check refused by their raw id, with the reason (text Spark's reader would have changed). */
    private final java.util.HashMap<String, String> refused;

    private RequestLayout(List<String> columns, Kind[] kinds, List<String> ignored) {
        this(columns, kinds, ignored, Map.of());
    }

    private RequestLayout(List<String> columns, Kind[] kinds, List<String> ignored, Map<String, String> refused) {
        this.refused = new java.util.HashMap<>(refused);
        this.columns = List.copyOf(columns);
        this.kinds = kinds.clone();
        this.ignored = List.copyOf(ignored);
        this.index = new int[RequestColumns.ALL.size()];
        for (int i = 0; i < index.length; i++) {
            index[i] = this.columns.indexOf(RequestColumns.ALL.get(i));
        }
    }

    /**
     * @param schema the requests' schema
     * @return its layout
     * @throws InvalidRequestException when {@code id} or {@code prompt} is missing or a column has the wrong type,
     *     naming the column, the types accepted and the type found
     */
    static RequestLayout of(StructType schema) {
        Map<String, StructField> byName = new java.util.HashMap<>();
        for (StructField f : schema.fields()) {
            byName.put(f.name(), f);
        }
        for (String required : List.of(RequestColumns.ID, RequestColumns.PROMPT)) {
            if (!byName.containsKey(required)) {
                throw new InvalidRequestException("the requests have no " + required + " column (found columns "
                        + Arrays.toString(schema.fieldNames()) + "); " + RequestColumns.ID + " and "
                        + RequestColumns.PROMPT + " are required");
            }
        }
        List<String> columns = new ArrayList<>();
        List<Kind> kinds = new ArrayList<>();
        for (String name : RequestColumns.ALL) {
            StructField f = byName.get(name);
            if (f != null) {
                columns.add(name);
                kinds.add(kindOf(name, f.dataType()));
            }
        }
        Set<String> ignored = new TreeSet<>(byName.keySet());
        ignored.removeAll(RequestColumns.ALL);
        return new RequestLayout(columns, kinds.toArray(new Kind[0]), new ArrayList<>(ignored));
    }

    private static Kind kindOf(String name, DataType type) {
        if (type instanceof NullType && !name.equals(RequestColumns.ID) && !name.equals(RequestColumns.PROMPT)) {
            return Kind.NULL;
        }
        if (type instanceof StringType) {
            return Kind.STRING;
        }
        if (NUMBER_COLUMNS.contains(name) && type instanceof NumericType) {
            return Kind.NUMBER;
        }
        if (name.equals(RequestColumns.REFERENCE_IMAGES)
                && type instanceof ArrayType array
                && array.elementType() instanceof StringType) {
            return Kind.STRING_ARRAY;
        }
        String expected = TEXT_COLUMNS.contains(name)
                ? "string"
                : NUMBER_COLUMNS.contains(name) ? "a numeric type or string" : "array<string> or string";
        throw new InvalidRequestException("column " + name + " must be " + expected + ", found " + type.simpleString());
    }

    /**
     * @param rows rows refused before Spark read them ({@link InputCheck}), by raw id, with the reason
     * @return this layout, failing those rows with their reason
     */
    RequestLayout refusing(Map<String, String> rows) {
        return new RequestLayout(columns, kinds, ignored, rows);
    }

    /** @return the request columns the input has, in {@link RequestColumns#ALL} order: select these */
    List<String> columns() {
        return columns;
    }

    /** @return the input's other columns, which are not used */
    List<String> ignoredColumns() {
        return ignored;
    }

    /**
     * @param row a row of {@link #columns()}
     * @return its {@code id} as given (null when null)
     */
    String rawId(Row row) {
        Object v = value(row, RequestColumns.ID);
        return v == null ? null : v.toString();
    }

    /**
     * @param row a row of {@link #columns()}
     * @return the parsed request
     * @throws InvalidRequestException naming the column and the value when the id or a value is invalid
     */
    RowRequest read(Row row) {
        String problem = refused.isEmpty() ? null : refused.get(rawId(row));
        if (problem != null) {
            throw new InvalidRequestException(problem);
        }
        RowId id = new RowId(rawId(row));
        Object prompt = value(row, RequestColumns.PROMPT);
        if (prompt == null) {
            throw new InvalidRequestException("column prompt must be set, found null");
        }
        String text = prompt.toString();
        checkUnicode(RequestColumns.PROMPT, text);
        return new RowRequest(
                id,
                text,
                wholeNumber(row, RequestColumns.SEED, Long.MIN_VALUE, Long.MAX_VALUE),
                intValue(row, RequestColumns.WIDTH),
                intValue(row, RequestColumns.HEIGHT),
                intValue(row, RequestColumns.STEPS),
                decimal(row, RequestColumns.GUIDANCE),
                text(row, RequestColumns.INIT_IMAGE),
                decimal(row, RequestColumns.STRENGTH),
                paths(row));
    }

    /** A lone UTF-16 surrogate is not text: refused by the rule the tokenizer applies ({@link UnicodeText}). */
    static void checkUnicode(String column, String text) {
        UnicodeText.requireWellFormed(text, "column " + column);
    }

    private Object value(Row row, String column) {
        int i = index[RequestColumns.ALL.indexOf(column)];
        return i < 0 || row.isNullAt(i) ? null : row.get(i);
    }

    private Kind kind(String column) {
        return kinds[index[RequestColumns.ALL.indexOf(column)]];
    }

    private String text(Row row, String column) {
        Object v = value(row, column);
        if (v == null || v.toString().isBlank()) {
            return null;
        }
        return v.toString().strip();
    }

    private Integer intValue(Row row, String column) {
        Long v = wholeNumber(row, column, Integer.MIN_VALUE, Integer.MAX_VALUE);
        return v == null ? null : v.intValue();
    }

    private Long wholeNumber(Row row, String column, long min, long max) {
        Object v = value(row, column);
        if (v == null || v instanceof String s && s.isBlank()) {
            return null;
        }
        if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
            return inRange(column, ((Number) v).longValue(), min, max, v);
        }
        BigDecimal exact;
        try {
            exact = new BigDecimal(v.toString().strip());
        } catch (NumberFormatException e) {
            throw new InvalidRequestException("column " + column + " must be a whole number, found " + Values.quote(v));
        }
        if (exact.signum() != 0 && exact.stripTrailingZeros().scale() > 0) {
            throw new InvalidRequestException("column " + column + " must be a whole number, found " + Values.quote(v));
        }
        if (exact.compareTo(BigDecimal.valueOf(min)) < 0 || exact.compareTo(BigDecimal.valueOf(max)) > 0) {
            throw outOfRange(column, min, max, v);
        }
        return exact.longValueExact();
    }

    private static long inRange(String column, long n, long min, long max, Object shown) {
        if (n < min || n > max) {
            throw outOfRange(column, min, max, shown);
        }
        return n;
    }

    private static InvalidRequestException outOfRange(String column, long min, long max, Object shown) {
        return new InvalidRequestException(
                "column " + column + " must be in [" + min + ", " + max + "], found " + Values.quote(shown));
    }

    private Double decimal(Row row, String column) {
        Object v = value(row, column);
        if (v == null) {
            return null;
        }
        if (v instanceof Number n) {
            return n.doubleValue();
        }
        String s = v.toString().strip();
        if (s.isEmpty()) {
            return null;
        }
        try {
            double d = Double.parseDouble(s);
            if (Double.isFinite(d)) {
                return d;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new InvalidRequestException("column " + column + " must be a finite number, found " + Values.quote(v));
    }

    private List<String> paths(Row row) {
        Object v = value(row, RequestColumns.REFERENCE_IMAGES);
        if (v == null) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        if (kind(RequestColumns.REFERENCE_IMAGES) == Kind.STRING_ARRAY) {
            int i = index[RequestColumns.ALL.indexOf(RequestColumns.REFERENCE_IMAGES)];
            for (Object element : row.getList(i)) {
                if (element == null || element.toString().isBlank()) {
                    throw new InvalidRequestException(
                            "column reference_images must hold paths, found an empty or null element");
                }
                out.add(element.toString().strip());
            }
        } else if (v.toString().strip().startsWith("[")) {
            out.addAll(jsonArray(v.toString().strip()));
        } else {
            for (String part : v.toString().split(",")) {
                if (!part.isBlank()) {
                    out.add(part.strip());
                }
            }
        }
        return out;
    }

    /**
     * Spark's JSON schema inference merges an array in one row and a string in another into a string column and
     * keeps the array's JSON text ({@code ["a.png","b.png"]}); split at commas it would become the paths
     * {@code ["a.png"} and {@code "b.png"]}. A string column's value that starts with {@code [} is therefore read
     * as a JSON array of paths (the same in CSV, where it is written so), and refused when it is not one.
     */
    private static List<String> jsonArray(String text) {
        JsonNode node;
        try {
            node = JSON.readTree(text);
        } catch (java.io.IOException e) {
            node = null;
        }
        if (node == null || !node.isArray()) {
            throw new InvalidRequestException("column " + RequestColumns.REFERENCE_IMAGES
                    + " starts with '[' but is not a JSON array of paths: " + Values.quote(text)
                    + " (write an array of strings, or comma-separated paths)");
        }
        List<String> out = new ArrayList<>();
        for (JsonNode element : node) {
            if (!element.isTextual() || element.asText().isBlank()) {
                throw new InvalidRequestException("column " + RequestColumns.REFERENCE_IMAGES
                        + " must hold paths, found "
                        + (element.isTextual() ? "an empty element" : "the element " + Values.quote(element.toString()))
                        + " in " + Values.quote(text));
            }
            out.add(element.asText().strip());
        }
        return out;
    }

    @Override
    public String toString() {
        return "RequestLayout"
                + columns.stream()
                        .map(c -> c + ":" + kind(c).name().toLowerCase(Locale.ROOT))
                        .toList();
    }
}
