package dev.flux2.spark;

import dev.flux2.Flux2Pipeline;
import dev.flux2.api.MemoryPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pipelines of this JVM (an executor, or the driver in local mode): one per {@link PipelineKey}, built on first
 * use with {@link MemoryPolicy#RESIDENT} and shared by every task of the JVM until {@link #closeAll()}, which
 * {@link Flux2SparkPlugin} calls when the executor stops. Thread-safe.
 */
final class ExecutorPipelines {
    private static final Logger LOG = LoggerFactory.getLogger(ExecutorPipelines.class);
    private static final Map<PipelineKey, SharedPipeline> PIPELINES = new ConcurrentHashMap<>();
    private static final Object LOCK = new Object();
    private static final AtomicInteger BUILDS = new AtomicInteger();

    private ExecutorPipelines() {}

    /**
     * @param key the model and options
     * @return this JVM's pipeline for them, built now if there is none (other tasks wait for the build)
     * @throws dev.flux2.api.ModelLoadException when the model cannot be loaded
     */
    static SharedPipeline acquire(PipelineKey key) {
        SharedPipeline shared = PIPELINES.get(key);
        if (shared != null) {
            return shared;
        }
        synchronized (LOCK) {
            shared = PIPELINES.get(key);
            if (shared == null) {
                shared = new SharedPipeline(build(key), key.concurrency());
                PIPELINES.put(key, shared);
            }
            return shared;
        }
    }

    private static Flux2Pipeline build(PipelineKey key) {
        long start = System.nanoTime();
        Flux2Pipeline.Builder builder =
                Flux2Pipeline.builder().model(ModelLocation.resolve(key)).memoryPolicy(MemoryPolicy.RESIDENT);
        key.backendOptions().forEach(builder::backendOption);
        Flux2Pipeline pipeline = builder.build();
        BUILDS.incrementAndGet();
        LOG.debug(
                "flux2 pipeline for model {} built in {} ms (RESIDENT, {} generation(s) at once)",
                key.model(),
                (System.nanoTime() - start) / 1_000_000,
                key.concurrency());
        return pipeline;
    }

    /** Closes every pipeline of this JVM (cancelling running generations) and forgets them. Idempotent. */
    static void closeAll() {
        List<SharedPipeline> closing;
        synchronized (LOCK) {
            closing = new ArrayList<>(PIPELINES.values());
            PIPELINES.clear();
        }
        for (SharedPipeline shared : closing) {
            try {
                shared.close();
            } catch (RuntimeException e) {
                LOG.warn("closing a flux2 pipeline failed: {}", Values.oneLine(e), e);
            }
        }
        if (!closing.isEmpty()) {
            LOG.debug("closed {} flux2 pipeline(s)", closing.size());
        }
    }

    /** @return how many pipelines this JVM has built so far (for tests and monitoring) */
    static int builds() {
        return BUILDS.get();
    }

    /** @return how many pipelines are open now */
    static int open() {
        return PIPELINES.size();
    }
}
