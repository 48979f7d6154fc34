package dev.flux2.cli;

import dev.flux2.api.GenerationLimits;
import picocli.CommandLine.Option;

/**
 * The {@code --max-*} request limit options, shared as a picocli {@code @Mixin} by {@code flux2 generate} and the
 * HTTP service ({@code flux2 serve}), so both accept the same limits with the same names and help. Each
 * option given replaces its {@link GenerationLimits} default; an option left out keeps the default (which the
 * pipeline may still raise for its model, see {@link GenerationLimits#forModel}).
 */
final class LimitOptions {
    @Option(
            names = "--max-pixels",
            paramLabel = "N",
            description = "Refuse an output larger than N pixels (width x height); default: 2048² or what the"
                    + " memory holds, whichever is smaller.")
    Long maxPixels;

    @Option(
            names = "--max-side",
            paramLabel = "N",
            description = "Refuse an output side longer than N pixels (default 4096).")
    Integer maxSide;

    @Option(names = "--max-steps", paramLabel = "N", description = "Refuse more than N steps (default 200).")
    Integer maxSteps;

    @Option(names = "--max-images", paramLabel = "N", description = "Refuse more than N images per run (default 16).")
    Integer maxImages;

    @Option(
            names = "--max-references",
            paramLabel = "N",
            description = "Refuse more than N reference images (default 10).")
    Integer maxReferences;

    @Option(
            names = "--max-input-pixels",
            paramLabel = "N",
            description = "Refuse an init or reference image larger than N pixels, read from its header before"
                    + " decoding (default: 8192² or what the heap holds).")
    Long maxInputPixels;

    @Option(
            names = "--max-input-side",
            paramLabel = "N",
            description = "Refuse an init or reference image side longer than N pixels (default 16384).")
    Integer maxInputSide;

    /** Created by picocli when a command declares this mixin. */
    public LimitOptions() {}

    /**
     * Sets each limit given on the command line on a builder, leaving the others as they are.
     *
     * @param builder the limits to overlay
     * @return {@code builder}
     */
    public GenerationLimits.Builder applyTo(GenerationLimits.Builder builder) {
        if (maxPixels != null) {
            builder.maxPixels(maxPixels);
        }
        if (maxSide != null) {
            builder.maxSide(maxSide);
        }
        if (maxSteps != null) {
            builder.maxSteps(maxSteps);
        }
        if (maxImages != null) {
            builder.maxImages(maxImages);
        }
        if (maxReferences != null) {
            builder.maxReferences(maxReferences);
        }
        if (maxInputPixels != null) {
            builder.maxInputPixels(maxInputPixels);
        }
        if (maxInputSide != null) {
            builder.maxInputSide(maxInputSide);
        }
        return builder;
    }

    /**
     * @return the default limits with each option given replacing its default
     * @throws dev.flux2.api.InvalidRequestException naming a value out of range (the caller reports it before any
     *     model loads)
     */
    public GenerationLimits toLimits() {
        return applyTo(GenerationLimits.builder()).build();
    }
}
