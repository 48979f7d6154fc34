package dev.flux2.spark;

import java.util.Map;
import org.apache.spark.api.plugin.DriverPlugin;
import org.apache.spark.api.plugin.ExecutorPlugin;
import org.apache.spark.api.plugin.PluginContext;
import org.apache.spark.api.plugin.SparkPlugin;

/**
 * Closes the executor's flux2 pipelines when the executor stops: register it with
 * {@code --conf spark.plugins=dev.flux2.spark.Flux2SparkPlugin} ({@link Flux2BatchJob} adds it itself).
 *
 * <p>Why: ONNX Runtime releases its native environment in a JVM shutdown hook of its own, and shutdown hooks run
 * concurrently, so a pipeline still open (or generating) when the JVM exits can abort the process. Spark stops
 * an executor, and calls {@link ExecutorPlugin#shutdown()}, before the executor JVM exits in every orderly case
 * (end of the application, dynamic de-allocation, decommissioning, {@code SparkContext.stop()} in local mode);
 * the pipelines are closed there, running generations cancelled first. When the executor is stopped by SIGTERM
 * (a cluster manager killing its container) or SIGINT, a signal handler that the executor side installs closes
 * the pipelines on the signal, before the JVM starts its shutdown hooks, then passes the signal on. Only a signal
 * the JVM cannot handle (SIGKILL) leaves no chance; then the JVM dies at once, and the write protocol still leaves
 * no partial image (see {@link Flux2Batch}).
 */
public final class Flux2SparkPlugin implements SparkPlugin {
    /** Spark instantiates plugins with their no-argument constructor. */
    public Flux2SparkPlugin() {}

    /** @return null: there is nothing to do on the driver */
    @Override
    public DriverPlugin driverPlugin() {
        return null;
    }

    /** @return the executor side, which closes the pipelines on shutdown */
    @Override
    public ExecutorPlugin executorPlugin() {
        return new ExecutorSide();
    }

    /** Closes this JVM's pipelines when the executor shuts down. */
    private static final class ExecutorSide implements ExecutorPlugin {
        @Override
        public void init(PluginContext ctx, Map<String, String> extraConf) {
            // Pipelines are built lazily by the first task that needs one; a SIGTERM closes them first.
            ExecutorSignals.install();
            QuietDjl.apply();
        }

        @Override
        public void shutdown() {
            ExecutorPipelines.closeAll();
        }
    }
}
