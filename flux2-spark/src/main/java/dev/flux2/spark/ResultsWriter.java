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
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;

/**
 * Writes the job's results: {@code <output>/results/} as Parquet (the action that runs the generation), then
 * {@code <output>/results.jsonl} from that Parquet (one JSON object per row, ordered by id, every column present,
 * nulls included; sorted in one task, since the driver writes the lines anyway), written to a temporary file and
 * renamed.
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
        return writeJsonLines(
                spark.read().parquet(parquet),
                new Path(output, RESULTS_JSONL),
                spark.sparkContext().hadoopConfiguration());
    }

    /** Writes the lines and counts the statuses on the way (one pass, one sort in one task). */
    private static Map<RowStatus, Long> writeJsonLines(Dataset<Row> results, Path target, Configuration conf)
            throws IOException {
        Column[] columns = ResultColumns.ALL.stream().map(c -> col(c)).toArray(Column[]::new);
        Dataset<Row> lines = results.coalesce(1)
                .sortWithinPartitions(ResultColumns.ID)
                .select(to_json(struct(columns), Map.of("ignoreNullFields", "false")), col(ResultColumns.STATUS));
        Map<RowStatus, Long> counts = new EnumMap<>(RowStatus.class);
        for (RowStatus status : RowStatus.values()) {
            counts.put(status, 0L);
        }
        FileSystem fs = HadoopFiles.forWriting(target, conf);
        Path temporary = new Path(target.getParent(), "." + target.getName() + "." + UUID.randomUUID() + ".tmp");
        try {
            try (Writer out =
                    new BufferedWriter(new OutputStreamWriter(fs.create(temporary, false), StandardCharsets.UTF_8))) {
                Iterator<Row> it = lines.toLocalIterator();
                while (it.hasNext()) {
                    Row line = it.next();
                    out.write(line.getString(0));
                    out.write('\n');
                    for (RowStatus status : RowStatus.values()) {
                        if (status.value().equals(line.getString(1))) {
                            counts.merge(status, 1L, Long::sum);
                        }
                    }
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
        return counts;
    }
}
