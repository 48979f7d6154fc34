package dev.flux2.spark;

import org.apache.spark.sql.SparkSession;

/** Spark in local mode for tests: loopback only, no UI, the flux2 plugin registered. */
final class LocalSpark {
    private LocalSpark() {}

    /**
     * @param master {@code local[N]}, or {@code local[N,F]} to allow F attempts per task
     * @return a new session (stop it when done)
     */
    static SparkSession start(String master) {
        return SparkSession.builder()
                .master(master)
                .appName("flux2-spark-test")
                .config("spark.ui.enabled", "false")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.sql.shuffle.partitions", "2")
                .config("spark.plugins", Flux2SparkPlugin.class.getName())
                .getOrCreate();
    }
}
