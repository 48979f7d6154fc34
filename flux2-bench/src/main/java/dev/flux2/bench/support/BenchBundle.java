package dev.flux2.bench.support;

import dev.flux2.testkit.FusedConvention;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import dev.flux2.testkit.timing.TimingBundleSpec;
import dev.flux2.testkit.timing.TimingBundleWriter;
import dev.flux2.testkit.timing.TimingTransformerSpec;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The bundle a benchmark runs on: the real bundle of {@code -Dflux2.model=DIR} when given, otherwise a bundle
 * written to a temporary directory for the trial and deleted on {@link #close()}.
 */
public final class BenchBundle implements AutoCloseable {
    private final Path directory;
    private final Optional<TempDirectory> temp;
    private final String description;

    private BenchBundle(Path directory, Optional<TempDirectory> temp, String description) {
        this.directory = directory;
        this.temp = temp;
        this.description = description;
    }

    /**
     * @return the real bundle, or else the miniature synthetic bundle (the testkit defaults: 64×64, 64 text tokens
     *         of 32 channels) with an engine-convention fused graph and a VAE encoder
     */
    public static BenchBundle syntheticOrReal() {
        return real().orElseGet(() -> synthetic(SyntheticBundleSpec.builder().fused(FusedConvention.ENGINE)));
    }

    /**
     * @param builder a synthetic spec builder (the tokenizer source is set to the fixture)
     * @return that synthetic bundle, written now
     */
    public static BenchBundle synthetic(SyntheticBundleSpec.Builder builder) {
        SyntheticBundleSpec spec = builder.build();
        TempDirectory dir = TempDirectory.create("flux2-bench-synthetic");
        try {
            SyntheticBundleWriter.write(spec, dir.path());
            return new BenchBundle(dir.path(), Optional.of(dir), "synthetic " + spec);
        } catch (RuntimeException e) {
            dir.close();
            throw e;
        }
    }

    /**
     * @param transformer the timing transformer (width and block counts)
     * @param size image side in pixels (the bundle's default size)
     * @return a timing bundle, written now
     */
    public static BenchBundle timing(TimingTransformerSpec transformer, int size) {
        TempDirectory dir = TempDirectory.create("flux2-bench-timing");
        try {
            TimingBundleSpec spec = TimingBundleSpec.builder()
                    .transformer(transformer)
                    .defaultSize(size, size)
                    .build();
            TimingBundleWriter.write(spec, dir.path());
            return new BenchBundle(dir.path(), Optional.of(dir), "timing " + spec);
        } catch (RuntimeException e) {
            dir.close();
            throw e;
        }
    }

    /** @return the bundle of {@code -Dflux2.model}, if given (never deleted) */
    public static Optional<BenchBundle> real() {
        return BenchProperties.realModel().map(dir -> new BenchBundle(dir, Optional.empty(), "real " + dir));
    }

    /** @return the bundle directory */
    public Path directory() {
        return directory;
    }

    /** @return whether this is the real bundle of {@code -Dflux2.model} */
    public boolean isReal() {
        return temp.isEmpty();
    }

    @Override
    public String toString() {
        return description;
    }

    /** Deletes a written bundle; leaves a real one alone. Idempotent. */
    @Override
    public void close() {
        temp.ifPresent(TempDirectory::close);
    }
}
