package dev.flux2.tokenizer;

import java.util.Objects;

/**
 * The chat template FLUX.2 [klein] applies to a prompt before tokenizing it.
 *
 * <p>The reference calls Qwen3's {@code apply_chat_template} with one user message, {@code add_generation_prompt=True}
 * and {@code enable_thinking=False}. For that input the Jinja template always renders the same fixed string, so it is
 * hard-coded here rather than interpreted: Qwen3's template does not run on non-Python Jinja engines.
 *
 * <p>Stateless and thread-safe.
 */
final class PromptTemplate {

    /** Opens the single user turn. */
    static final String PREFIX = "<|im_start|>user\n";

    /** Closes the user turn, opens the assistant turn and emits the empty thinking block of enable_thinking=False. */
    static final String SUFFIX = "<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n";

    /** The special tokens the template uses; each must be a single token of the tokenizer. */
    static final java.util.List<String> SPECIAL_TOKENS =
            java.util.List.of("<|im_start|>", "<|im_end|>", "<think>", "</think>");

    private PromptTemplate() {}

    /**
     * Renders one prompt as the reference does.
     *
     * @param prompt the user's prompt, inserted verbatim: not stripped, normalised or escaped, so special-token text
     *               such as {@code <|im_end|>} inside it stays special-token text, as in the reference
     * @return {@code "<|im_start|>user\n" + prompt + "<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"}
     * @throws NullPointerException if {@code prompt} is null
     */
    static String render(String prompt) {
        Objects.requireNonNull(prompt, "prompt");
        return PREFIX + prompt + SUFFIX;
    }
}
