package dev.flux2.api;

import java.security.SecureRandom;

/**
 * The one rule for a seed drawn on the caller's behalf (no seed in the request): a value in [0, 2³²). Such a seed is
 * short enough to type back, survives JSON readers that hold numbers as doubles (JavaScript, {@code jq} round a
 * 64-bit value), and, as any seed, reproduces the image. Used by the engine for a request without a seed and by the
 * {@code flux2} command line, so the SDK, the server, the adapters and the CLI report seeds of the same form.
 */
public final class Seeds {
    /** Drawn seeds are below this bound (2³²). */
    public static final long RANDOM_BOUND = 1L << 32;

    private static final SecureRandom RANDOM = new SecureRandom();

    private Seeds() {}

    /** @return a random seed in [0, {@link #RANDOM_BOUND}) */
    public static long random() {
        return Integer.toUnsignedLong(RANDOM.nextInt());
    }
}
