/**
 * Qwen3 prompt tokenization for FLUX.2 [klein], identical to the reference, on DJL's Hugging Face tokenizers
 * ({@code dev.flux2.tokenizer.Qwen3PromptTokenizer}).
 */
@SuppressWarnings({"module", "requires-automatic"}) // "flux2" ends in a digit; DJL jars are automatic modules
module dev.flux2.tokenizer {
    requires transitive dev.flux2.core; // TokenizedPrompt and ModelLoadException in the API
    requires ai.djl.api;
    requires ai.djl.tokenizers;
    requires com.fasterxml.jackson.databind;
    requires org.slf4j;

    exports dev.flux2.tokenizer;
}
