package dev.flux2.onnx.bundle;

import dev.flux2.api.ModelLoadException;
import dev.flux2.spi.LatentGrid;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The I/O contract of every graph a bundle uses (docs/bundle-format.md §8 to §11), checked against the graphs' real
 * signatures, which are authoritative (docs/bundle-format.md §4): the element type of every tensor is the one its graph
 * declares, and tensor names are resolved from the graph (and the config's lists while they agree with it), by the
 * names known exports use and, for the VAE chain, by name matching between stages. One class per graph family does the
 * resolving ({@link TextEncoderContract}, {@link TransformerContract}, {@link FusedDetector},
 * {@link VaeDecoderContract}); this class reads the headers and puts them together. Graphs the config lists but the
 * backend does not use are not read. Stateless.
 */
public final class GraphContracts {
    private static final Logger LOG = LoggerFactory.getLogger(GraphContracts.class);
    private static final List<String> ENCODER_IMAGE = KnownNames.IMAGE_IN;
    private static final List<String> ENCODER_LATENT = KnownNames.LATENT;

    private GraphContracts() {}

    /**
     * Reads the header (no weights) of every graph the backend uses, checks the external data each references,
     * and checks the contracts.
     *
     * @param config the parsed config whose files have been validated
     * @return the resolved I/O of every graph
     * @throws ModelLoadException naming the graph, the tensor, the expectation and what was found
     */
    public static BundleIo load(BundleConfig config) {
        Map<String, GraphSignature> signatures = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        for (ModelEntry entry : config.usedModels()) {
            GraphSignature s = readSignature(config, entry);
            signatures.put(entry.key(), s);
            problems.addAll(ExternalDataCheck.problems(entry.key(), s));
        }
        if (!problems.isEmpty()) {
            throw new ModelLoadException("the model bundle " + config.directory() + " has "
                    + (problems.size() == 1 ? "a problem: " : problems.size() + " problems: ")
                    + String.join("; ", problems));
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
     * @param signatures the real signature of every graph the backend uses, by key
     * @return the resolved I/O
     */
    public static BundleIo check(BundleConfig config, Map<String, GraphSignature> signatures) {
        int textSeq = config.text().sequenceLength();
        int contextDim = config.text().contextDim();
        TextEncoderIo text =
                TextEncoderContract.resolve(check(config, signatures, GraphKeys.TEXT_ENCODER), textSeq, contextDim);
        TransformerIo transformer =
                TransformerContract.resolve(check(config, signatures, GraphKeys.TRANSFORMER), textSeq, contextDim);
        if (transformer.inputs().ctx().elementType() != text.ctx().elementType()) {
            LOG.debug(
                    "text encoder produces {} context but the transformer takes {}; converting once per prompt",
                    text.ctx().elementType(),
                    transformer.inputs().ctx().elementType());
        }
        Optional<FusedIo> fused = config.fusedTransformer()
                .map(e -> FusedDetector.detect(
                        SignatureCheck.ignoringDeclaredInputs(e, signature(signatures, e)),
                        textSeq,
                        contextDim,
                        e.settings().fusedSteps()));
        OptionalInt headDim = config.model(GraphKeys.VAE_DECODER_ATTN_CHUNK)
                .map(e -> e.settings().headDim())
                .orElse(OptionalInt.empty());
        DecoderIo decoder = VaeDecoderContract.resolve(
                config.decoder(),
                key -> check(config, signatures, key),
                config.decoder().unified() ? OptionalInt.empty() : headDim);
        Optional<VaeEncoderIo> encoder = config.vaeEncoder().map(e -> vaeEncoder(check(config, signatures, e.key())));
        if (!config.ignoredModelKeys().isEmpty()) {
            LOG.debug("models entries not used by the onnx backend: {}", config.ignoredModelKeys());
        }
        Map<String, GraphSignature> used = new LinkedHashMap<>();
        for (String key : config.usedModelKeys()) {
            used.put(key, signatures.get(key));
        }
        return new BundleIo(used, text, transformer, fused, decoder, encoder);
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

    private static VaeEncoderIo vaeEncoder(SignatureCheck c) {
        String imageName = c.findInput(ENCODER_IMAGE).orElseGet(() -> c.inputAt("image", 0, 1));
        c.requireOnlyInputs(Set.of(imageName));
        TensorSignature image = c.input(imageName, TensorRule.of("image", TypeSets.FLOATS, 1, 3, -1, -1));
        String z = c.findOutput(ENCODER_LATENT).orElseGet(() -> c.outputAt("z", 0, 1));
        return new VaeEncoderIo(
                image, c.output(z, TensorRule.of("latent", TypeSets.FLOATS, 1, LatentGrid.CHANNELS, -1, -1)));
    }
}
