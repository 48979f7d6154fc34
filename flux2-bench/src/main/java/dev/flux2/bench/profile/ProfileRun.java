package dev.flux2.bench.profile;

import dev.flux2.Flux2Pipeline;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.api.MemoryPolicy;
import dev.flux2.onnx.options.OnnxOptions;
import dev.flux2.onnx.session.SessionLifecycleClock;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs N generations of one prompt (seeds 1..N) in this JVM with one memory policy and records each one's timings
 * and memory counters.
 */
final class ProfileRun {
    static final String PROMPT = "a red fox in the snow, golden hour, 35 mm photograph";

    private ProfileRun() {}

    /**
     * The samples and the process memory around them.
     *
     * @param samples one per generation
     * @param rssBeforeOpenBytes VmRSS before the pipeline was built
     * @param rssAfterOpenBytes VmRSS after the pipeline was built (JVM, natives, tokenizer; no sessions yet)
     * @param openNanos time to build the pipeline (config, graph headers, tokenizer; no sessions)
     */
    record Result(List<GenerationSample> samples, long rssBeforeOpenBytes, long rssAfterOpenBytes, long openNanos) {}

    static Result run(Path bundle, MemoryPolicy policy, ProfileOptions options) {
        long rssBefore = ProcStatus.rssBytes();
        long openStart = System.nanoTime();
        List<GenerationSample> samples = new ArrayList<>();
        Flux2Pipeline.Builder builder = Flux2Pipeline.builder().model(bundle).memoryPolicy(policy);
        OnnxOptions.builder()
                .threads(options.threads())
                .build()
                .asBackendOptions()
                .forEach(builder::backendOption);
        try (Flux2Pipeline pipeline = builder.build()) {
            long openNanos = System.nanoTime() - openStart;
            long rssAfterOpen = ProcStatus.rssBytes();
            GenerationRequest base = GenerationRequest.builder(PROMPT)
                    .size(options.size(), options.size())
                    .steps(options.steps())
                    .build();
            for (int i = 1; i <= options.generations(); i++) {
                long create = SessionLifecycleClock.createNanos();
                long close = SessionLifecycleClock.closeNanos();
                long start = System.nanoTime();
                GenerationResult result =
                        pipeline.generate(base.toBuilder().seed(i).build());
                long wall = System.nanoTime() - start;
                GenerationSample.SessionNanos sessions = new GenerationSample.SessionNanos(
                        SessionLifecycleClock.createNanos() - create, SessionLifecycleClock.closeNanos() - close);
                long rss = ProcStatus.rssBytes();
                long peak = ProcStatus.peakRssBytes();
                long direct = directBytes();
                long heap = heapUsed();
                long afterGc = options.mode() == ProfileOptions.Mode.RSS_GROWTH ? rssAfterGc() : -1;
                samples.add(
                        new GenerationSample(i, result.timings(), wall, rss, peak, direct, heap, afterGc, sessions));
                System.out.printf("generation %d/%d: %.0f ms%n", i, options.generations(), wall / 1e6);
            }
            return new Result(List.copyOf(samples), rssBefore, rssAfterOpen, openNanos);
        }
    }

    /**
     * VmRSS once garbage is gone: direct buffers are returned to the OS only after a GC has found them unreachable
     * and the cleaner thread has run, so without this a leak and transient garbage look the same.
     */
    private static long rssAfterGc() {
        System.gc();
        try {
            Thread.sleep(200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the cleaner after a GC", e);
        }
        return ProcStatus.rssBytes();
    }

    private static long directBytes() {
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                return pool.getMemoryUsed();
            }
        }
        throw new IllegalStateException("this JVM reports no 'direct' buffer pool");
    }

    private static long heapUsed() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
