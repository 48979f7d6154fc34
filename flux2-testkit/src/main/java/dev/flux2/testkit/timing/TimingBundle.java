package dev.flux2.testkit.timing;

import java.nio.file.Path;

/**
 * A written timing bundle.
 *
 * @param directory the bundle directory (holds {@code flux2-config.json})
 * @param spec what was written
 * @param transformer the timing transformer's files
 */
public record TimingBundle(Path directory, TimingBundleSpec spec, TimingTransformerFiles transformer) {}
