package dev.flux2.bench.tokenizer;

import dev.flux2.bench.support.BenchProperties;
import dev.flux2.spi.TokenizedPrompt;
import dev.flux2.testkit.TokenizerFixture;
import dev.flux2.tokenizer.Qwen3PromptTokenizer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Tokenizing one prompt to 512 ids and mask (chat template, DJL encode, pad, mask). Uses the bundle's
 * {@code tokenizer/} with {@code -Dflux2.model=DIR}, else the Qwen3 fixture the synthetic bundles copy.
 */
@State(Scope.Benchmark)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class TokenizerBenchmark {
    /** Short prompt, and a long one that is truncated at 512 tokens. */
    @Param({"short", "long"})
    public String prompt;

    private Qwen3PromptTokenizer tokenizer;
    private String text;

    /** Loads the tokenizer. */
    @Setup(Level.Trial)
    public void setUp() {
        Path dir = BenchProperties.realModel().map(m -> m.resolve("tokenizer")).orElseGet(TokenizerFixture::directory);
        tokenizer = Qwen3PromptTokenizer.load(dir, 512);
        text = "short".equals(prompt)
                ? "a red fox in the snow, golden hour, 35 mm photograph"
                : "a detailed matte painting of a mountain village at dusk, ".repeat(60);
    }

    /** Closes the tokenizer. */
    @TearDown(Level.Trial)
    public void tearDown() {
        tokenizer.close();
    }

    /** @return ids and mask */
    @Benchmark
    public TokenizedPrompt tokenize() {
        return tokenizer.tokenize(text);
    }
}
