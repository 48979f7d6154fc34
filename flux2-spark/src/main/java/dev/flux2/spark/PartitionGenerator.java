package dev.flux2.spark;

import java.io.IOException;
import java.util.Iterator;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Row;

/**
 * The task body: opens the images folder and turns each request row of the partition into its result row, one at
 * a time, as Spark pulls them.
 */
final class PartitionGenerator implements MapPartitionsFunction<Row, Row> {
    private static final long serialVersionUID = 1L;

    private final RequestLayout layout;
    private final BatchOptions options;
    private final Broadcast<SerializableConfiguration> hadoopConf;

    PartitionGenerator(RequestLayout layout, BatchOptions options, Broadcast<SerializableConfiguration> hadoopConf) {
        this.layout = layout;
        this.options = options;
        this.hadoopConf = hadoopConf;
    }

    @Override
    public Iterator<Row> call(Iterator<Row> rows) throws IOException {
        Configuration conf = hadoopConf.value().get();
        ImageStore store = ImageStore.open(options.output(), conf);
        TaskContext context = TaskContext.get();
        RowGenerator generator =
                new RowGenerator(layout, options, store, conf, TaskAttempt.current(), new TaskCancellation(context));
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return rows.hasNext();
            }

            @Override
            public Row next() {
                return generator.process(rows.next());
            }
        };
    }
}
