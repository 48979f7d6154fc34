package dev.flux2.onnx.bundle;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The text encoder's contract (docs/bundle-format.md §8.1): token ids [1, text_seq] (INT64 or INT32), an optional
 * attention mask and optional position ids of the same shape, and one float context output
 * [1, text_seq, context_dim] ({@code ctx} in the seed bundle, {@code prompt_embeds} in hlhc's export, else the
 * first output). Stateless.
 */
final class TextEncoderContract {
    private static final List<String> IDS = KnownNames.TOKEN_IDS;
    private static final List<String> MASK = KnownNames.ATTENTION_MASK;
    private static final List<String> POSITIONS = KnownNames.POSITION_IDS;
    private static final List<String> CTX = KnownNames.TEXT_CONTEXT_OUT;

    private TextEncoderContract() {}

    static TextEncoderIo resolve(SignatureCheck c, int textSeq, int contextDim) {
        String ids = c.findInput(IDS).orElseGet(() -> c.inputAt("input_ids", 0, 1));
        Optional<String> mask = c.findInput(MASK);
        Optional<String> positions = c.findInput(POSITIONS);
        Set<String> fed = new LinkedHashSet<>(List.of(ids));
        mask.ifPresent(fed::add);
        positions.ifPresent(fed::add);
        c.requireOnlyInputs(fed);
        String ctx = c.findOutput(CTX).orElseGet(() -> c.outputAt("ctx", 0, 1));
        return new TextEncoderIo(
                c.input(ids, TensorRule.of("token ids", TypeSets.TOKENS, 1, textSeq)),
                mask.map(m -> c.input(m, TensorRule.of("attention mask", TypeSets.TOKENS, 1, textSeq))),
                positions.map(p -> c.input(p, TensorRule.of("position ids", TypeSets.TOKENS, 1, textSeq))),
                c.output(ctx, TensorRule.of("text context", TypeSets.FLOATS, 1, textSeq, contextDim)));
    }
}
