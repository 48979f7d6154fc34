package dev.flux2.onnx.graph;

import dev.flux2.api.ModelLoadException;
import dev.flux2.onnx.config.BundleConfig;
import dev.flux2.onnx.config.GraphKeys;
import dev.flux2.onnx.config.ModelEntry;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The I/O contract of every bundle graph (onnx-bundle §6), checked against the graphs' real signatures.
 *
 * <p>Tensor names come from the config's {@code inputs}/{@code outputs} (which must then match the graph exactly)
 * or, when the config does not declare them, from the graph. Transformer and text-encoder roles are found by the
 * names known exports use ({@code x} / {@code hidden_states}, …); VAE chain roles by position, as the browser
 * engine feeds them. Float activations are fp16 unless the entry's {@code activation_dtype} is fp32; ids are fp32;
 * token ids and masks are int64. Stateless.
 */
public final class GraphContracts {
    private static final Logger LOG = LoggerFactory.getLogger(GraphContracts.class);
    private static final List<String> X = List.of("x", "hidden_states");
    private static final List<String> X_IDS = List.of("x_ids", "img_ids");
    private static final List<String> TIMESTEPS = List.of("timesteps", "timestep");
    private static final List<String> CTX = List.of("ctx", "encoder_hidden_states");
    private static final List<String> CTX_IDS = List.of("ctx_ids", "txt_ids");
    private static final int LATENT_CHANNELS = 128;
    private static final int DEFAULT_FUSED_STEPS = 4;

    private GraphContracts() {
    }

    /**
     * Reads every graph's header (no weights) and checks it.
     *
     * @param config the parsed config whose files have been validated
     * @return the resolved I/O of every graph
     * @throws ModelLoadException naming the graph, the tensor, the expectation and what was found
     */
    public static BundleIo load(BundleConfig config) {
        Map<String, GraphSignature> signatures = new LinkedHashMap<>();
        for (ModelEntry entry : config.models().values()) {
            signatures.put(entry.key(), readSignature(config, entry));
        }
        return check(config, signatures);
    }

    /**
     * @param config the config
     * @param entry one of its entries
     * @return the graph's real signature
     * @throws ModelLoadException when the header cannot be read
     */
    public static GraphSignature readSignature(BundleConfig config, ModelEntry entry) {
        try {
            return OnnxHeaderReader.read(config.directory().resolve(entry.file()));
        } catch (IOException e) {
            throw new ModelLoadException("graph " + entry.key() + " (" + entry.file() + "): " + e.getMessage(), e);
        }
    }

    /**
     * @param config the config
     * @param signatures every graph's real signature by key
     * @return the resolved I/O
     */
    public static BundleIo check(BundleConfig config, Map<String, GraphSignature> signatures) {
        int textSeq = config.text().sequenceLength();
        int contextDim = config.text().contextDim();
        TextEncoderIo text = textEncoder(check(config, signatures, GraphKeys.TEXT_ENCODER), textSeq, contextDim);
        TransformerIo transformer = transformer(check(config, signatures, GraphKeys.TRANSFORMER), textSeq,
                contextDim);
        if (transformer.inputs().ctx().elementType() != text.ctx().elementType()) {
            // Supported (the denoiser converts once per generation) but worth knowing.
            LOG.info(
                    "text encoder produces {} context but the transformer takes {}; converting once per prompt",
                    text.ctx().elementType(), transformer.inputs().ctx().elementType());
        }
        Optional<FusedIo> fused = config.fusedTransformer().map(e -> FusedDetector.detect(
                new SignatureCheck(e, signature(signatures, e)), textSeq, contextDim,
                e.settings().fusedSteps().orElse(DEFAULT_FUSED_STEPS)));
        VaeDecoderIo decoder = vaeDecoder(config, signatures);
        Optional<VaeEncoderIo> encoder = config.vaeEncoder().map(e -> vaeEncoder(new SignatureCheck(e,
                signature(signatures, e))));
        return new BundleIo(signatures, text, transformer, fused, decoder, encoder);
    }

    private static SignatureCheck check(BundleConfig config, Map<String, GraphSignature> signatures, String key) {
        ModelEntry entry = config.requiredModel(key);
        return new SignatureCheck(entry, signature(signatures, entry));
    }

    private static GraphSignature signature(Map<String, GraphSignature> signatures, ModelEntry entry) {
        GraphSignature s = signatures.get(entry.key());
        if (s == null) {
            throw new ModelLoadException("graph " + entry.key() + " (" + entry.file() + ") has not been read");
        }
        return s;
    }

    /** @return FLOAT when the entry's activation_dtype says fp32, else FLOAT16 */
    static ElementType activationType(ModelEntry entry) {
        return entry.settings().fp32Activations() ? ElementType.FLOAT : ElementType.FLOAT16;
    }

    private static TextEncoderIo textEncoder(SignatureCheck c, int textSeq, int contextDim) {
        c.requireDeclaredNames(true);
        String ids = c.inputByAlias("input_ids", List.of("input_ids"));
        String mask = c.inputByAlias("attention_mask", List.of("attention_mask"));
        String ctx = c.outputByAlias("ctx", List.of("ctx", "prompt_embeds", c.outputAt("ctx", 0, 1)));
        c.requireOnlyInputs(Set.of(ids, mask));
        return new TextEncoderIo(
                c.input(ids, TensorRule.of("token ids", ElementType.INT64, 1, textSeq)),
                c.input(mask, TensorRule.of("attention mask", ElementType.INT64, 1, textSeq)),
                c.output(ctx, TensorRule.of("text context", activationType(c.entry()), 1, textSeq, contextDim)));
    }

    /**
     * @param c the check of a transformer-like graph
     * @param textSeq text_seq_len
     * @param contextDim context_dim
     * @return its latent, ids and context inputs
     */
    static TransformerInputs transformerInputs(SignatureCheck c, int textSeq, int contextDim) {
        ElementType act = activationType(c.entry());
        return new TransformerInputs(
                c.input(c.inputByAlias("x", X), TensorRule.of("latent tokens", act, 1, -1, LATENT_CHANNELS)),
                c.input(c.inputByAlias("x_ids", X_IDS), TensorRule.of("latent ids", ElementType.FLOAT, 1, -1, 4)),
                c.input(c.inputByAlias("ctx", CTX), TensorRule.of("text context", act, 1, textSeq, contextDim)),
                c.input(c.inputByAlias("ctx_ids", CTX_IDS), TensorRule.of("text ids", ElementType.FLOAT, 1,
                        textSeq, 4)));
    }

    private static TransformerIo transformer(SignatureCheck c, int textSeq, int contextDim) {
        c.requireDeclaredNames(true);
        TransformerInputs in = transformerInputs(c, textSeq, contextDim);
        ElementType act = activationType(c.entry());
        TensorSignature timesteps = c.input(c.inputByAlias("timesteps", TIMESTEPS),
                TensorRule.of("sigma", act, 1));
        String predName = c.outputByAlias("pred", List.of("pred", "noise_pred", c.outputAt("pred", 0, 1)));
        TensorSignature pred = c.output(predName, TensorRule.of("velocity", act, 1, -1, LATENT_CHANNELS));
        c.requireOnlyInputs(Set.of(in.x().name(), in.xIds().name(), timesteps.name(), in.ctx().name(),
                in.ctxIds().name()));
        return new TransformerIo(in, timesteps, pred);
    }

    private static VaeDecoderIo vaeDecoder(BundleConfig config, Map<String, GraphSignature> signatures) {
        SignatureCheck pre = check(config, signatures, GraphKeys.VAE_DECODER_PRE);
        pre.requireDeclaredNames(true);
        ElementType act = activationType(pre.entry());
        TensorSignature z = pre.input(pre.inputAt("z", 0, 1), TensorRule.of("latent", act, 1, LATENT_CHANNELS,
                -1, -1));
        pre.requireOnlyInputs(Set.of(z.name()));
        TensorSignature residual = pre.output(pre.outputAt("residual", 0, 4), TensorRule.of("residual", act, 1,
                -1, -1, -1));
        TensorSignature q = pre.output(pre.outputAt("q", 1, 4), TensorRule.of("attention q", act, 1, 1, -1, -1));
        TensorSignature kt = pre.output(pre.outputAt("kt", 2, 4), TensorRule.of("attention k transposed", act,
                1, 1, -1, -1));
        TensorSignature v = pre.output(pre.outputAt("v", 3, 4), TensorRule.of("attention v", act, 1, 1, -1, -1));

        SignatureCheck attn = check(config, signatures, GraphKeys.VAE_DECODER_ATTN_CHUNK);
        attn.requireDeclaredNames(true);
        long headDim = attn.entry().settings().headDim().orElse(-1);
        TensorSignature qChunk = attn.input(attn.inputAt("q_chunk", 0, 3),
                TensorRule.of("query rows", q.elementType(), 1, 1, -1, headDim));
        TensorSignature ktIn = attn.input(attn.inputAt("kt", 1, 3),
                TensorRule.of("k transposed", kt.elementType(), 1, 1, headDim, -1));
        TensorSignature vIn = attn.input(attn.inputAt("v", 2, 3),
                TensorRule.of("v", v.elementType(), 1, 1, -1, headDim));
        attn.requireOnlyInputs(Set.of(qChunk.name(), ktIn.name(), vIn.name()));
        TensorSignature attnOut = attn.output(attn.outputAt("attention", 0, 1),
                TensorRule.of("attention rows", q.elementType(), 1, 1, -1, headDim));
        VaeDecoderIo.Attention attention = new VaeDecoderIo.Attention(qChunk, ktIn.name(), vIn.name(), attnOut);

        List<VaeDecoderIo.PostStage> post = new ArrayList<>();
        ElementType previousType = attnOut.elementType();
        List<String> keys = config.vaeDecoderPostStageKeys();
        for (int i = 0; i < keys.size(); i++) {
            SignatureCheck stage = check(config, signatures, keys.get(i));
            stage.requireDeclaredNames(true);
            boolean first = i == 0;
            boolean last = i == keys.size() - 1;
            Optional<String> residualIn = Optional.empty();
            String mainIn;
            if (first) {
                String r = stage.entry().names().residualInput().orElseGet(() -> stage.inputAt("residual", 0, 2));
                mainIn = stage.entry().names().attentionInput().orElseGet(() -> stage.inputAt("attention", 1, 2));
                stage.input(r, TensorRule.of("residual", residual.elementType(), 1, -1, -1, -1));
                residualIn = Optional.of(r);
            } else {
                mainIn = stage.inputAt("previous stage output", 0, 1);
            }
            stage.input(mainIn, TensorRule.of(first ? "attention result" : "previous stage output", previousType,
                    first ? new long[] {1, 1, -1, -1} : new long[] {1, -1, -1, -1}));
            Set<String> fed = new LinkedHashSet<>();
            residualIn.ifPresent(fed::add);
            fed.add(mainIn);
            stage.requireOnlyInputs(fed);
            String outName = last ? stage.outputByAlias("image", List.of("image", stage.outputAt("image", 0, 1)))
                    : stage.outputAt("stage output", 0, 1);
            TensorSignature out = stage.output(outName, last
                    ? TensorRule.of("image", activationType(stage.entry()), 1, 3, -1, -1)
                    : new TensorRule("stage output", Set.of(ElementType.FLOAT16, ElementType.FLOAT), 4, Map.of()));
            previousType = out.elementType();
            post.add(new VaeDecoderIo.PostStage(keys.get(i), residualIn, mainIn, outName));
        }
        return new VaeDecoderIo(z, residual.name(), q, kt.name(), v.name(), attention, post);
    }

    private static VaeEncoderIo vaeEncoder(SignatureCheck c) {
        c.requireDeclaredNames(true);
        ElementType act = activationType(c.entry());
        TensorSignature image = c.input(c.inputAt("image", 0, 1), TensorRule.of("image", act, 1, 3, -1, -1));
        c.requireOnlyInputs(Set.of(image.name()));
        TensorSignature z = c.output(c.outputByAlias("z", List.of("z", "latents", c.outputAt("z", 0, 1))),
                TensorRule.of("latent", act, 1, LATENT_CHANNELS, -1, -1));
        return new VaeEncoderIo(image, z);
    }
}
