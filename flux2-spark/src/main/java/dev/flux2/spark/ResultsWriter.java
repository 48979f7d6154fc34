package dev.flux2.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.to_json;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;

/**
 * Writes the job's results: {@code <output>/results/} as Parquet (the action that runs the generation), then
 * {@code <output>/results.jsonl} from that Parquet (one JSON object per row, ordered by id, every column present,
 * nulls included), written to a temporary file and renamed.
 */
final class ResultsWriter {
    /** The Parquet results folder under the output. */
    static final String RESULTS = "results";
    /** The JSON Lines results file under the output. */
    static final String RESULTS_JSONL = "results.jsonl";

    private ResultsWriter() {}

    /**
     * @param spark the session
     * @param results the lazy results of {@link Flux2Batch#generate}
     * @param output the output folder URI
     * @return rows per status
     * @throws IOException when {@code results.jsonl} cannot be written
     */
    static Map<RowStatus, Long> write(SparkSession spark, Dataset<Row> results, String output) throws IOException {
        String parquet = new Path(output, RESULTS).toString();
        results.write().mode(SaveMode.Overwrite).parquet(parquet);
        Dataset<Row> written = spark.read().parquet(parquet);
        writeJsonLines(
                written, new Path(output, RESULTS_JSONL), spark.sparkContext().hadoopConfiguration());
        Map<RowStatus, Long> counts = new EnumMap<>(RowStatus.class);
        for (RowStatus status : RowStatus.values()) {
            counts.put(status, 0L);
        }
        for (Row r : written.groupBy(ResultColumns.STATUS).count().collectAsList()) {
            for (RowStatus status : RowStatus.values()) {
                if (status.value().equals(r.getString(0))) {
                    counts.put(status, r.getLong(1));
                }
            }
        }
        return counts;
    }

    private static void writeJsonLines(Dataset<Row> results, Path target, Configuration conf) throws IOException {
        Column[] columns = ResultColumns.ALL.stream().map(c -> col(c)).toArray(Column[]::new);
        Dataset<String> lines = results.orderBy(ResultColumns.ID)
                .select(to_json(struct(columns), Map.of("ignoreNullFields", "false")))
                .as(Encoders.STRING());
        FileSystem fs = HadoopFiles.forWriting(target, conf);
        Path temporary = new Path(target.getParent(), "." + target.getName() + "." + UUID.randomUUID() + ".tmp");
        try {
            try (Writer out =
                    new BufferedWriter(new OutputStreamWriter(fs.create(temporary, false), StandardCharsets.UTF_8))) {
                Iterator<String> it = lines.toLocalIterator();
                while (it.hasNext()) {
                    out.write(it.next());
                    out.write('\n');
                }
            }
            if (!fs.rename(temporary, target)) {
                fs.delete(target, false);
                if (!fs.rename(temporary, target)) {
                    throw new IOException("cannot rename " + temporary + " to " + target);
                }
            }
        } finally {
            if (fs.exists(temporary)) {
                fs.delete(temporary, false);
            }
        }
    }
}
