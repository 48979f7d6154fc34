package dev.flux2.bench;

import java.util.List;

/** JMH parameter overrides of the smoke run: tiny synthetic bundle only, smallest sizes. */
final class SmokeParams {
    /**
     * Extra JMH arguments: the timing benchmark runs its graph structure at hidden 256 ({@code width=tiny}, one
     * layout) instead of the realistic width, whose bundle is 350 MB and whose step takes seconds; the tokenizer
     * runs the short prompt only; the attention benchmark runs 2 heads over 256 tokens (its default 24 × 4608 needs 5 GB
     * of score matrices).
     */
    static final List<String> ARGUMENTS =
            List.of("-p", "width=tiny", "-p", "blocks=1+1", "-p", "prompt=short", "-p", "tokens=256", "-p", "heads=2");

    private SmokeParams() {}
}
