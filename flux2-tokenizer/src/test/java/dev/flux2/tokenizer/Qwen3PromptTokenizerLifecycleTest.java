package dev.flux2.tokenizer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.InvalidRequestException;
import dev.flux2.api.PipelineClosedException;
import dev.flux2.spi.TokenizedPrompt;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Thread safety, close semantics and argument checks. */
class Qwen3PromptTokenizerLifecycleTest {

    private static final int THREADS = 6;

    /** Many threads tokenizing all golden prompts at once get exactly the golden ids, every time. */
    @Test
    void concurrentTokenizationGivesTheGoldenIds() throws Exception {
        Qwen3PromptTokenizer tokenizer = Goldens.sharedTokenizer();
        List<Goldens.Case> cases = Goldens.cases();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int offset = t;
                results.add(pool.submit(() -> {
                    start.await();
                    int checked = 0;
                    for (int round = 0; round < 40; round++) {
                        Goldens.Case golden = cases.get((round + offset) % cases.size());
                        TokenizedPrompt tokens = tokenizer.tokenize(golden.prompt());
                        assertArrayEquals(
                                golden.inputIds(),
                                Arrays.copyOf(tokens.inputIds(), golden.realTokens()),
                                golden.toString());
                        assertEquals(golden.realTokens(), tokens.realTokens());
                        checked++;
                    }
                    return checked;
                }));
            }
            start.countDown();
            for (Future<Integer> result : results) {
                assertEquals(40, result.get(60, TimeUnit.SECONDS));
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void closeIsIdempotentAndLaterCallsThrow() {
        Qwen3PromptTokenizer tokenizer = Qwen3PromptTokenizer.load(Goldens.fixtureTokenizerDir(), 32);
        assertEquals(18, tokenizer.tokenize("a red fox in the snow").realTokens());
        tokenizer.close();
        tokenizer.close();

        PipelineClosedException e = assertThrows(PipelineClosedException.class, () -> tokenizer.tokenize("x"));
        assertTrue(e.getMessage().contains("tokenize") && e.getMessage().contains("close()"), e.getMessage());
        assertThrows(PipelineClosedException.class, () -> tokenizer.encodeRaw("x"));
        // Plain values stay readable for diagnostics.
        assertEquals(32, tokenizer.sequenceLength());
        assertEquals(Goldens.padTokenId(), tokenizer.padId());
    }

    /** A close racing with running calls: each call either completes correctly or reports the close; nothing else. */
    @Test
    void closeWhileOtherThreadsTokenize() throws Exception {
        Qwen3PromptTokenizer tokenizer = Qwen3PromptTokenizer.load(Goldens.fixtureTokenizerDir(), 512);
        Goldens.Case golden = Goldens.caseFor("a red fox in the snow");
        AtomicInteger completed = new AtomicInteger();
        CountDownLatch running = new CountDownLatch(THREADS);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<Boolean>> results = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                results.add(pool.submit(() -> {
                    running.countDown();
                    while (true) {
                        try {
                            TokenizedPrompt tokens = tokenizer.tokenize(golden.prompt());
                            assertArrayEquals(golden.inputIds(), Arrays.copyOf(tokens.inputIds(), 18));
                            completed.incrementAndGet();
                        } catch (PipelineClosedException expected) {
                            return true;
                        }
                    }
                }));
            }
            running.await();
            Thread.sleep(50);
            tokenizer.close();
            for (Future<Boolean> result : results) {
                assertTrue(result.get(60, TimeUnit.SECONDS));
            }
            assertTrue(completed.get() > 0, "some calls should have completed before close");
        } finally {
            pool.shutdownNow();
        }
    }

    /** Valid surrogate pairs (emoji) are covered by the golden emoji case; only unpaired ones are refused. */
    @Test
    void unpairedSurrogateIsRejected() {
        InvalidRequestException e = assertThrows(
                InvalidRequestException.class, () -> Goldens.sharedTokenizer().tokenize("fox \uD83E in snow"));
        assertTrue(e.getMessage().contains("prompt") && e.getMessage().contains("index 4"), e.getMessage());
        assertThrows(
                InvalidRequestException.class, () -> Goldens.sharedTokenizer().encodeRaw("\uDC00"));
        assertThrows(
                InvalidRequestException.class, () -> Goldens.sharedTokenizer().encodeRaw("x\uD800"));
    }

    @Test
    void nullArgumentsAreRejected() {
        assertThrows(NullPointerException.class, () -> Goldens.sharedTokenizer().tokenize(null));
        assertThrows(NullPointerException.class, () -> Goldens.sharedTokenizer().encodeRaw(null));
    }
}
