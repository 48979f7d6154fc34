package dev.flux2.onnx.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.MemoryPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AutoMemoryPolicyTest {
    private static final long GIB = 1L << 30;
    private static final long MIB = 1L << 20;

    /** The q4 bundle's weights, roughly: text encoder 2.6 GB and transformer 2.5 GB external, VAE 160 MB inline. */
    private static final SessionFootprint Q4 = new SessionFootprint(List.of(
            new SessionFootprint.GraphWeights("text_encoder", 2 * MIB, 2600 * MIB),
            new SessionFootprint.GraphWeights("transformer", 3 * MIB, 2500 * MIB),
            new SessionFootprint.GraphWeights("vae_decoder", 160 * MIB, 0)));

    private static MemorySnapshot memory(long available, OptionalLong cgroupLimit, long cgroupUsage, long xmx) {
        return new MemorySnapshot(
                available,
                new CgroupMemory(cgroupLimit, OptionalLong.of(cgroupUsage), cgroupLimit.isPresent() ? 2 : 0),
                xmx,
                256 * MIB,
                xmx);
    }

    @Test
    void footprintFollowsTheMeasuredFactors() {
        SessionFootprint.GraphWeights t = Q4.graphs().get(1);
        assertEquals((long) (1.3 * 2503 * MIB), t.creationPeakBytes());
        assertEquals(3 * MIB + (long) (0.65 * 2500 * MIB), t.settledBytes());
        long settled = Q4.graphs().stream()
                .mapToLong(SessionFootprint.GraphWeights::settledBytes)
                .sum();
        // The text encoder has the largest creation surplus (1.3 × 2602 MiB − its settled size).
        long surplus =
                Q4.graphs().get(0).creationPeakBytes() - Q4.graphs().get(0).settledBytes();
        assertEquals(settled + surplus, Q4.residentPeakBytes());
        assertEquals(Q4.graphs().get(0).creationPeakBytes(), Q4.sequentialPeakBytes());
    }

    @Test
    void explicitPoliciesAreKept() {
        MemorySnapshot tiny = memory(0, OptionalLong.empty(), 0, GIB);
        assertEquals(
                MemoryPolicy.RESIDENT,
                AutoMemoryPolicy.decide(MemoryPolicy.RESIDENT, Q4, tiny).policy());
        assertEquals(
                MemoryPolicy.SEQUENTIAL,
                AutoMemoryPolicy.decide(MemoryPolicy.SEQUENTIAL, Q4, tiny).policy());
    }

    @Test
    void residentWhenEverythingFitsWithWorkingMemory() {
        MemoryDecision d =
                AutoMemoryPolicy.decide(MemoryPolicy.AUTO, Q4, memory(20 * GIB, OptionalLong.empty(), 0, 4 * GIB));
        assertEquals(MemoryPolicy.RESIDENT, d.policy());
        assertEquals(MemoryPolicy.AUTO, d.requested());
        assertTrue(d.reason().contains("fits in"), d.reason());
        assertTrue(d.reason().contains("cgroup unlimited"), d.reason());
    }

    @Test
    void sequentialOnASmallMachine() {
        MemoryDecision d =
                AutoMemoryPolicy.decide(MemoryPolicy.AUTO, Q4, memory(6 * GIB, OptionalLong.empty(), 0, GIB));
        assertEquals(MemoryPolicy.SEQUENTIAL, d.policy());
        assertTrue(d.reason().contains("exceeds"), d.reason());
    }

    @Test
    void aCgroupLimitBindsBelowPhysicalMemory() {
        MemoryDecision d = AutoMemoryPolicy.decide(
                MemoryPolicy.AUTO, Q4, memory(20 * GIB, OptionalLong.of(8 * GIB), 2 * GIB, GIB));
        assertEquals(MemoryPolicy.SEQUENTIAL, d.policy(), d.reason());
        assertTrue(d.reason().contains("limit 8.00 GiB headroom 6.00 GiB"), d.reason());
    }

    @Test
    void theHeapsHeadroomIsReservedBeforeSessions() {
        long needed = Q4.residentPeakBytes() + AutoMemoryPolicy.WORKING_MEMORY_BYTES;
        long available = needed + MemorySnapshot.DIRECT_RESERVE_BYTES + 512 * MIB;
        // With -Xmx just above what is committed the bundle fits; with a large -Xmx the heap's room does not leave
        // enough for the sessions.
        assertEquals(
                MemoryPolicy.RESIDENT,
                AutoMemoryPolicy.decide(MemoryPolicy.AUTO, Q4, memory(available, OptionalLong.empty(), 0, 512 * MIB))
                        .policy());
        assertEquals(
                MemoryPolicy.SEQUENTIAL,
                AutoMemoryPolicy.decide(MemoryPolicy.AUTO, Q4, memory(available, OptionalLong.empty(), 0, 2 * GIB))
                        .policy());
    }

    @Test
    void memAvailableIsParsedInKibibytes(@TempDir Path dir) throws IOException {
        Path meminfo = dir.resolve("meminfo");
        Files.writeString(meminfo, "MemTotal:       24683620 kB\nMemFree:  1 kB\nMemAvailable:   23872064 kB\n");
        assertEquals(OptionalLong.of(23872064L * 1024), MemorySnapshot.memAvailable(meminfo));
        assertTrue(MemorySnapshot.memAvailable(dir.resolve("absent")).isEmpty());
    }

    @Test
    void theCurrentProcessHasSomeMemory() {
        MemorySnapshot now = MemorySnapshot.current();
        assertTrue(now.memAvailableBytes() > 0);
        assertTrue(now.heapMaxBytes() > 0);
    }
}
