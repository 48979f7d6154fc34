package dev.flux2.bench;

import java.util.List;

/** JMH parameter overrides of the smoke run: tiny synthetic bundle only, smallest sizes. */
final class SmokeParams {
    /**
     * Extra JMH arguments: the timing benchmark runs its graph structure at hidden 256 ({@code width=tiny}, one
     * layout) instead of the realistic width, whose bundle is 350 MB and whose step takes seconds; the tokenizer
     * runs the short prompt only.
     */
    static final List<String> ARGUMENTS = List.of("-p", "width=tiny", "-p", "blocks=1+1", "-p", "prompt=short");

    private SmokeParams() {}
}
