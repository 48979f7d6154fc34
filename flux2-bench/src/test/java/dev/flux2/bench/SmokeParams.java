package dev.flux2.bench;

import java.util.List;

/** JMH parameter overrides of the smoke run: tiny synthetic bundle only, smallest sizes. */
final class SmokeParams {
    /** Extra JMH arguments; the realistic-width timing bundle is left out (it takes minutes to run). */
    static final List<String> ARGUMENTS = List.of();

    private SmokeParams() {
    }
}
