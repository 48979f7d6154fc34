package dev.flux2.spark;

import java.util.List;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The columns of the results {@link Flux2Batch#generate} returns, one row per request row.
 *
 * <table>
 * <caption>Result columns</caption>
 * <tr><th>Column</th><th>Type</th><th>Meaning</th></tr>
 * <tr><td>{@code id}</td><td>string</td><td>the request's id, as given</td></tr>
 * <tr><td>{@code path}</td><td>string</td><td>the image's fully qualified URI; null when the row failed</td></tr>
 * <tr><td>{@code seed}</td><td>bigint</td><td>the seed used (given, or derived from the id); null when
 *     unknown</td></tr>
 * <tr><td>{@code width}, {@code height}, {@code steps}</td><td>int</td><td>of the image; for a failed row the
 *     requested values, if any</td></tr>
 * <tr><td>{@code status}</td><td>string</td><td>{@code ok}, {@code skipped} or {@code failed} ({@link
 *     RowStatus})</td></tr>
 * <tr><td>{@code error}</td><td>string</td><td>why the row failed, one line; null otherwise</td></tr>
 * <tr><td>{@code tokenize_ms}, {@code text_encode_ms}, {@code vae_encode_ms}, {@code denoise_ms},
 *     {@code vae_decode_ms}, {@code total_ms}</td><td>double</td><td>wall time per stage and in all (from
 *     {@code GenerationResult.timings()}); {@code vae_encode_ms} is 0 without images; all null unless
 *     {@code ok}</td></tr>
 * </table>
 */
public final class ResultColumns {
    /** The request's id. */
    public static final String ID = "id";
    /** The image's URI. */
    public static final String PATH = "path";
    /** The seed used. */
    public static final String SEED = "seed";
    /** The image width. */
    public static final String WIDTH = "width";
    /** The image height. */
    public static final String HEIGHT = "height";
    /** The step count. */
    public static final String STEPS = "steps";
    /** {@code ok}, {@code skipped} or {@code failed}. */
    public static final String STATUS = "status";
    /** Why the row failed. */
    public static final String ERROR = "error";
    /** Tokenizer wall time, milliseconds. */
    public static final String TOKENIZE_MS = "tokenize_ms";
    /** Text encoder wall time, milliseconds. */
    public static final String TEXT_ENCODE_MS = "text_encode_ms";
    /** VAE encoder wall time (init and reference images), milliseconds. */
    public static final String VAE_ENCODE_MS = "vae_encode_ms";
    /** Denoising loop wall time, milliseconds. */
    public static final String DENOISE_MS = "denoise_ms";
    /** VAE decoder wall time, milliseconds. */
    public static final String VAE_DECODE_MS = "vae_decode_ms";
    /** Whole generation wall time, milliseconds. */
    public static final String TOTAL_MS = "total_ms";

    /** The result schema, columns in this order, all nullable. */
    public static final StructType SCHEMA = new StructType(new StructField[] {
        field(ID, DataTypes.StringType),
        field(PATH, DataTypes.StringType),
        field(SEED, DataTypes.LongType),
        field(WIDTH, DataTypes.IntegerType),
        field(HEIGHT, DataTypes.IntegerType),
        field(STEPS, DataTypes.IntegerType),
        field(STATUS, DataTypes.StringType),
        field(ERROR, DataTypes.StringType),
        field(TOKENIZE_MS, DataTypes.DoubleType),
        field(TEXT_ENCODE_MS, DataTypes.DoubleType),
        field(VAE_ENCODE_MS, DataTypes.DoubleType),
        field(DENOISE_MS, DataTypes.DoubleType),
        field(VAE_DECODE_MS, DataTypes.DoubleType),
        field(TOTAL_MS, DataTypes.DoubleType)
    });

    /** Every column, in schema order. */
    public static final List<String> ALL = List.of(SCHEMA.fieldNames());

    private ResultColumns() {}

    private static StructField field(String name, org.apache.spark.sql.types.DataType type) {
        return DataTypes.createStructField(name, type, true);
    }
}
