package dev.flux2.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@link GenerationRequest} as a value, and the per-call {@link GenerationControls} kept out of it. */
class GenerationRequestValueTest {
    private static final BufferedImage INIT = new BufferedImage(64, 64, BufferedImage.TYPE_INT_RGB);

    private static GenerationRequest.Builder full() {
        return GenerationRequest.builder("a fox")
                .negativePrompt("blur")
                .size(64, 64)
                .sigmas(1f, 0.5f)
                .guidance(2.5)
                .initImage(INIT)
                .strength(0.6)
                .numImages(1)
                .noise(new float[128 * 16]);
    }

    @Test
    void equalValuesAreEqualRequests() {
        GenerationRequest a = full().build();
        GenerationRequest b = full().build();
        assertEquals(a, b, "arrays compared by content, the same image object on both");
        assertEquals(a.hashCode(), b.hashCode());
        assertEquals(a, a.toBuilder().build());
    }

    @Test
    void anyDifferentValueMakesADifferentRequest() {
        GenerationRequest a = full().build();
        assertNotEquals(a, full().negativePrompt("").build());
        assertNotEquals(a, full().sigmas(1f, 0.4f).build());
        assertNotEquals(a, full().strength(0.7).build());
        assertNotEquals(a, full().noise(new float[128 * 32]).build());
        assertNotEquals(
                a,
                full().initImage(new BufferedImage(64, 64, BufferedImage.TYPE_INT_RGB))
                        .build(),
                "another image object, even with the same pixels, is another request (images by identity)");
        assertNotEquals(
                GenerationRequest.builder("p").seed(1).build(),
                GenerationRequest.builder("p").seed(2).build());
    }

    @Test
    void toStringShowsValuesAndImageSizesNotPixels() {
        String text = full().build().toString();
        assertTrue(text.contains("prompt=\"a fox\"") && text.contains("initImage=64x64"), text);
        assertTrue(text.contains("noise=2048 values"), text);
    }

    @Test
    void controlsAreImmutableAndDefaultToNothing() {
        GenerationControls none = GenerationControls.none();
        assertSame(ProgressListener.NONE, none.progressListener());
        assertTrue(none.cancellation().isEmpty());

        AtomicInteger events = new AtomicInteger();
        CancellationToken token = new CancellationToken();
        GenerationControls both =
                none.withProgress(e -> events.incrementAndGet()).withCancellation(token);
        assertSame(token, both.cancellation().orElseThrow());
        both.progressListener().onProgress(null);
        assertEquals(1, events.get());
        assertSame(ProgressListener.NONE, none.progressListener(), "the original is unchanged");
        assertTrue(none.cancellation().isEmpty());
        assertSame(ProgressListener.NONE, both.withProgress(null).progressListener());
        assertTrue(both.withCancellation(null).cancellation().isEmpty());
    }
}
