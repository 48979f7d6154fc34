package dev.flux2.server;

import dev.flux2.api.GeneratedImage;
import dev.flux2.api.GenerationMetadata;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.api.Stage;
import dev.flux2.api.StageTimings;
import java.awt.image.BufferedImage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/** A stand-in generator (test helper): image k of a request has the seed's colour pattern for seed + k. */
final class FakeImages {
    private FakeImages() {}

    static BufferedImage image(int w, int h, long seed) {
        BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                img.setRGB(x, y, (int) (seed * 2654435761L) ^ (x << 8) ^ y);
            }
        }
        return img;
    }

    static GenerationResult of(GenerationRequest r) {
        int w = r.width().orElse(64);
        int h = r.height().orElse(48);
        long seed = r.seed().orElse(99);
        StageTimings t = new StageTimings(
                Map.of(Stage.DENOISE, Duration.ofMillis(4)), Duration.ofMillis(5), Duration.ofMillis(4));
        List<GeneratedImage> images = new ArrayList<>();
        for (int k = 0; k < r.numImages(); k++) {
            GenerationMetadata m = new GenerationMetadata(
                    r.prompt(),
                    OptionalLong.of(seed + k),
                    r.steps().orElse(4),
                    r.steps().orElse(4),
                    w,
                    h,
                    1f,
                    OptionalDouble.empty(),
                    0,
                    false,
                    0,
                    "fake",
                    t);
            images.add(new GeneratedImage(image(w, h, seed + k), m));
        }
        return new GenerationResult(images, t);
    }
}
