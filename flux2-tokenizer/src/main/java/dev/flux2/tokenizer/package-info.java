/**
 * Prompt handling for FLUX.2 [klein]: the Qwen3 chat template (rendered as the reference does) and a
 * thread-safe, offline tokenizer that produces exactly the {@code input_ids} and {@code attention_mask} the
 * reference pipeline feeds its text encoder ({@link dev.flux2.tokenizer.Qwen3PromptTokenizer}).
 */
package dev.flux2.tokenizer;
