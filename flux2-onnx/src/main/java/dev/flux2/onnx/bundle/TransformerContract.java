package dev.flux2.onnx.bundle;

import dev.flux2.spi.LatentGrid;
import java.util.List;
import java.util.Set;

/**
 * The per-step transformer's contract (docs/bundle-format.md §8.2), resolved from the names known exports use: latent
 * tokens {@code x}/{@code hidden_states} [1, N, 128], ids {@code x_ids}/{@code img_ids} [1, N, 4] (or [N, 4]),
 * σ {@code timesteps}/{@code timestep} (one value), context {@code ctx}/{@code encoder_hidden_states}
 * [1, text_seq, context_dim], text ids {@code ctx_ids}/{@code txt_ids}, and the velocity
 * {@code pred}/{@code noise_pred} (else the first output). Float tensors may be any float type and ids any id type
 * ({@link TypeSets}); each is fed as its graph declares. Stateless.
 */
final class TransformerContract {
    /** Latent channels per token. */
    private static final List<String> X = KnownNames.LATENT_TOKENS;

    private static final List<String> X_IDS = KnownNames.IMAGE_IDS;
    private static final List<String> TIMESTEPS = KnownNames.TIMESTEP;
    private static final List<String> CTX = KnownNames.TEXT_CONTEXT_IN;
    private static final List<String> CTX_IDS = KnownNames.TEXT_IDS;
    private static final List<String> PRED = KnownNames.VELOCITY;

    private TransformerContract() {}

    /**
     * @param c the check of a transformer-like graph
     * @param textSeq text_seq_len
     * @param contextDim context_dim
     * @return its latent, ids and context inputs
     */
    static TransformerInputs inputs(SignatureCheck c, int textSeq, int contextDim) {
        return new TransformerInputs(
                c.input(
                        c.inputByAlias("x", X),
                        TensorRule.of("latent tokens", TypeSets.FLOATS, 1, -1, LatentGrid.CHANNELS)),
                ids(c, c.inputByAlias("x_ids", X_IDS), "latent ids", -1),
                c.input(
                        c.inputByAlias("ctx", CTX),
                        TensorRule.of("text context", TypeSets.FLOATS, 1, textSeq, contextDim)),
                ids(c, c.inputByAlias("ctx_ids", CTX_IDS), "text ids", textSeq));
    }

    /** Ids are [1, T, 4], or [T, 4] as newer diffusers exports declare them. */
    private static TensorSignature ids(SignatureCheck c, String name, String role, long length) {
        TensorRule withoutBatch = TensorRule.of(role, TypeSets.IDS, length, 4);
        return c.signature()
                .input(name)
                .filter(withoutBatch::accepts)
                .orElseGet(() -> c.input(name, TensorRule.of(role, TypeSets.IDS, 1, length, 4)));
    }

    static TransformerIo resolve(SignatureCheck c, int textSeq, int contextDim) {
        TransformerInputs in = inputs(c, textSeq, contextDim);
        TensorSignature timesteps =
                c.input(c.inputByAlias("timesteps", TIMESTEPS), TensorRule.singleValue("sigma", TypeSets.FLOATS));
        String predName = c.findOutput(PRED).orElseGet(() -> c.outputAt("pred", 0, 1));
        TensorSignature pred =
                c.output(predName, TensorRule.of("velocity", TypeSets.FLOATS, 1, -1, LatentGrid.CHANNELS));
        c.requireOnlyInputs(Set.of(
                in.x().name(),
                in.xIds().name(),
                timesteps.name(),
                in.ctx().name(),
                in.ctxIds().name()));
        return new TransformerIo(in, timesteps, pred);
    }
}
