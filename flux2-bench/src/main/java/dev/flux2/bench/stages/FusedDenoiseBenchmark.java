package dev.flux2.bench.stages;

import dev.flux2.bench.support.BenchBundle;
import dev.flux2.spi.FusedSupport;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * All four steps in one call of the fused graph (the Euler updates inside the graph). The synthetic bundle has an
 * engine-convention fused graph; a real bundle without a usable one fails the setup with the reason.
 */
@State(Scope.Benchmark)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class FusedDenoiseBenchmark {
    /** Image side in pixels; 0 = the bundle's default size. */
    @Param({"0"})
    public int size;

    private BenchBundle bundle;
    private DenoiserFixture fixture;
    private float[] latent;

    /** Opens the bundle, checks the fused graph and runs it once (session creation). */
    @Setup(Level.Trial)
    public void setUp() {
        bundle = BenchBundle.syntheticOrReal();
        fixture = DenoiserFixture.open(bundle.directory(), size);
        FusedSupport support = fixture.session().fusedSupport(4);
        if (!support.available()) {
            tearDown();
            throw new IllegalStateException("bundle " + bundle + " cannot run 4 fused steps: " + support.reason());
        }
        latent = fixture.noise().clone();
        denoise();
    }

    /** Closes everything and deletes a written bundle. */
    @TearDown(Level.Trial)
    public void tearDown() {
        try {
            fixture.close();
        } finally {
            bundle.close();
        }
    }

    /** @return the final latent of 4 fused steps from the seeded noise */
    @Benchmark
    public float[] denoise() {
        System.arraycopy(fixture.noise(), 0, latent, 0, latent.length);
        fixture.session().denoiseFused(fixture.sigmas(), latent, fixture.text());
        return latent;
    }
}
