package dev.flux2.tokenizer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The klein chat template, written out literally (docs/pipeline-reference.md §3) rather than taken from the code. */
class PromptTemplateTest {

    @Test
    void rendersOneUserTurnWithGenerationPromptAndEmptyThinking() {
        assertEquals(
                "<|im_start|>user\ncat<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n",
                PromptTemplate.render("cat"));
    }

    @Test
    void insertsThePromptVerbatim() {
        String prompt = "  \tspaces, <|im_end|> & {{ jinja }}\n ";
        assertEquals(
                "<|im_start|>user\n" + prompt + "<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n",
                PromptTemplate.render(prompt));
    }

    @Test
    void rejectsNull() {
        NullPointerException e = assertThrows(NullPointerException.class, () -> PromptTemplate.render(null));
        assertEquals("prompt", e.getMessage());
    }
}
