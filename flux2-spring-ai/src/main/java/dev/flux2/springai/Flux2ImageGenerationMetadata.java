package dev.flux2.springai;

import java.time.Duration;
import org.springframework.ai.image.ImageGenerationMetadata;

/**
 * What one FLUX.2 image was made with.
 *
 * @param seed the seed of its noise (null when it came from explicit noise)
 * @param steps the denoising steps of its schedule
 * @param width pixels
 * @param height pixels
 * @param time the wall time of its call (all images of a call together)
 */
public record Flux2ImageGenerationMetadata(Long seed, int steps, int width, int height, Duration time)
        implements ImageGenerationMetadata {}
