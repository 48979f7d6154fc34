package dev.flux2.spi;

/**
 * What a backend started for one generation in {@link Flux2Backend#prepare}. The pipeline closes it when the
 * generation ends, however it ends; the backend then releases whatever the generation did not use (for example a
 * session opened ahead for a stage that never ran because the generation was cancelled).
 */
@FunctionalInterface
public interface Preparation extends AutoCloseable {
    /** Nothing prepared. */
    Preparation NONE = () -> {};

    /** Releases what the generation did not use. Idempotent; never throws. */
    @Override
    void close();
}
