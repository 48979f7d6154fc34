package dev.flux2.testkit.timing;

import java.nio.file.Path;

/**
 * A written full-size synthetic bundle.
 *
 * @param directory the bundle directory (holds {@code flux2-config.json})
 * @param spec what was written
 * @param textEncoderLinears the text encoder's MatMulNBits nodes
 * @param bytes bytes of every file written
 */
public record FullSizeBundle(Path directory, FullSizeBundleSpec spec, int textEncoderLinears, long bytes) {}
