package dev.flux2.onnx.bundle;

import dev.flux2.spi.LatentGrid;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The VAE decoder's contract (docs/bundle-format.md §10), for both layouts.
 *
 * <p>Unified ({@code models.vae_decoder}): one latent input → one image output.
 *
 * <p>Split: tensors are matched by name wherever the names allow it, as the browser engine chains the stages, and
 * by position otherwise:
 * <ul>
 *   <li>post stage 0 (or the single post graph) takes the residual and the attention result: named by the stage's
 *       {@code residual_input}/{@code attn_input}, else the input whose name is a pre-stage output is the
 *       residual, else the one input named like attention ({@code attn}, {@code MatMul}) is the attention, else
 *       inputs 0 and 1;</li>
 *   <li>the pre stage's outputs: the residual is the output named like post stage 0's residual input; q, kᵀ and v
 *       are the outputs named {@code …/Mul_6_output_0}, {@code …/Mul_7_output_0}, {@code …/Reshape_2_output_0}
 *       (the real export's names); the roles left over take the remaining outputs in order;</li>
 *   <li>the attention-chunk graph takes {@code q_chunk}, {@code kt}, {@code v} (else inputs 0, 1, 2);</li>
 *   <li>a later post stage's input is fed the residual, the attention or an earlier stage's output of the same
 *       name; one input left without a producer takes the previous stage's first output.</li>
 * </ul>
 * Every tensor may have any float type; the decoder converts where producer and consumer differ. Stateless.
 */
final class VaeDecoderContract {
    private static final Logger LOG = LoggerFactory.getLogger(VaeDecoderContract.class);
    private static final List<String> Z = KnownNames.LATENT;
    private static final List<String> IMAGE = KnownNames.IMAGE_OUT;
    private static final Pattern ATTENTION_NAME = Pattern.compile("(?i)attn|attention|matmul");
    private static final List<String> CHUNK_INPUTS = List.of("q_chunk", "kt", "v");

    private VaeDecoderContract() {}

    /**
     * @param layout the decoder layout from the config
     * @param checks the check of each graph by config key
     * @param headDim the attention-chunk entry's {@code head_dim}, if given
     * @return the resolved decoder
     */
    static DecoderIo resolve(DecoderLayout layout, Function<String, SignatureCheck> checks, OptionalInt headDim) {
        if (layout.unified()) {
            SignatureCheck c = checks.apply(GraphKeys.VAE_DECODER);
            TensorSignature z = latentInput(c);
            String image = c.findOutput(IMAGE).orElseGet(() -> c.outputAt("image", 0, 1));
            return new UnifiedDecoderIo(c.entry().key(), z, c.output(image, imageRule()));
        }
        return split(layout.postKeys(), checks, headDim);
    }

    private static TensorSignature latentInput(SignatureCheck c) {
        String name = c.findInput(Z).orElseGet(() -> c.inputAt("z", 0, 1));
        c.requireOnlyInputs(Set.of(name));
        return c.input(name, TensorRule.of("latent", TypeSets.FLOATS, 1, LatentGrid.CHANNELS, -1, -1));
    }

    private static TensorRule imageRule() {
        return TensorRule.of("image", TypeSets.FLOATS, 1, 3, -1, -1);
    }

    private static VaeDecoderIo split(
            List<String> postKeys, Function<String, SignatureCheck> checks, OptionalInt configHeadDim) {
        SignatureCheck pre = checks.apply(GraphKeys.VAE_DECODER_PRE);
        TensorSignature z = latentInput(pre);
        SignatureCheck first = checks.apply(postKeys.get(0));
        StageZeroInputs stageZero = stageZeroInputs(first, pre.outputNames());
        PreNames names = preOutputs(pre, stageZero.residual());
        TensorSignature q = pre.output(
                names.q(), TensorRule.of("attention q", TypeSets.FLOATS, 1, 1, -1, configHeadDim.orElse(-1)));
        long hd = configHeadDim.isPresent()
                ? configHeadDim.getAsInt()
                : q.dimOrFree(3).value();
        TensorSignature residual =
                pre.output(names.residual(), TensorRule.of("residual", TypeSets.FLOATS, 1, -1, -1, -1));
        TensorSignature kt =
                pre.output(names.kt(), TensorRule.of("attention k transposed", TypeSets.FLOATS, 1, 1, hd, -1));
        TensorSignature v = pre.output(names.v(), TensorRule.of("attention v", TypeSets.FLOATS, 1, 1, -1, hd));
        VaeDecoderIo.Attention attention = attention(checks.apply(GraphKeys.VAE_DECODER_ATTN_CHUNK), hd);
        ChainStart start = new ChainStart(
                stageZero,
                names.residual(),
                new VaeDecoderIo.Source(VaeDecoderIo.SourceKind.RESIDUAL, -1, "", residual.elementType()),
                new VaeDecoderIo.Source(
                        VaeDecoderIo.SourceKind.ATTENTION,
                        -1,
                        "",
                        attention.output().elementType()),
                hd);
        List<VaeDecoderIo.PostStage> post = postStages(postKeys, checks, start);
        return new VaeDecoderIo(pre.entry().key(), z, residual, q, kt, v, attention, post);
    }

    /** The names of post stage 0's residual and attention inputs. */
    private record StageZeroInputs(String residual, String attention) {}

    private static StageZeroInputs stageZeroInputs(SignatureCheck stage, List<String> preOutputs) {
        List<String> inputs = stage.inputNames();
        Optional<String> residual = configured(stage, stage.entry().names().residualInput(), "residual_input");
        Optional<String> attention = configured(stage, stage.entry().names().attentionInput(), "attn_input");
        if (residual.isEmpty() && attention.isEmpty()) {
            List<String> named = inputs.stream().filter(preOutputs::contains).toList();
            List<String> attentionLike = inputs.stream()
                    .filter(n -> ATTENTION_NAME.matcher(n).find())
                    .toList();
            if (named.size() == 1) {
                residual = Optional.of(named.get(0));
            } else if (attentionLike.size() == 1) {
                attention = Optional.of(attentionLike.get(0));
            } else {
                residual = Optional.of(stage.inputAt("residual", 0, 2));
            }
        }
        String r = residual.isPresent() ? residual.get() : otherInput(stage, attention.orElseThrow(), "residual");
        String a = attention.isPresent() ? attention.get() : otherInput(stage, r, "attention result");
        if (r.equals(a)) {
            throw stage.error("residual_input and attn_input both name input '" + r + "'");
        }
        stage.requireOnlyInputs(Set.of(r, a));
        return new StageZeroInputs(r, a);
    }

    /** A {@code residual_input}/{@code attn_input} naming no input of the graph is stale: the graph wins. */
    private static Optional<String> configured(SignatureCheck stage, Optional<String> name, String field) {
        if (name.isPresent() && !stage.signature().inputNames().contains(name.get())) {
            LOG.warn(
                    "graph {} ({}): models.{}.{} names '{}', which is not an input of the graph {}; ignoring it",
                    stage.entry().key(),
                    stage.entry().file(),
                    stage.entry().key(),
                    field,
                    name.get(),
                    stage.signature().inputNames());
            return Optional.empty();
        }
        return name;
    }

    private static String otherInput(SignatureCheck stage, String known, String role) {
        List<String> others =
                stage.inputNames().stream().filter(n -> !n.equals(known)).toList();
        if (others.size() != 1) {
            throw stage.error("the first post-attention graph takes the residual and the attention result, so it "
                    + "needs exactly two inputs; cannot tell which of " + others + " is the " + role
                    + " (set residual_input and attn_input in the config)");
        }
        return others.get(0);
    }

    /** The pre stage's output names by role. */
    private record PreNames(String residual, String q, String kt, String v) {}

    private static PreNames preOutputs(SignatureCheck pre, String residualInput) {
        List<String> outputs = pre.outputNames();
        String[] roles = {
            outputs.contains(residualInput) ? residualInput : null,
            named(outputs, "/Mul_6_output_0", "q"),
            named(outputs, "/Mul_7_output_0", "kt"),
            named(outputs, "/Reshape_2_output_0", "v"),
        };
        List<String> rest = new ArrayList<>(outputs);
        rest.removeAll(java.util.Arrays.asList(roles));
        Iterator<String> next = rest.iterator();
        for (int i = 0; i < roles.length; i++) {
            if (roles[i] == null) {
                if (!next.hasNext()) {
                    throw pre.error("expected 4 outputs (residual, q, k transposed, v), found " + outputs.size() + ": "
                            + outputs);
                }
                roles[i] = next.next();
            }
        }
        return new PreNames(roles[0], roles[1], roles[2], roles[3]);
    }

    private static String named(List<String> outputs, String suffix, String exact) {
        return outputs.stream()
                .filter(n -> n.endsWith(suffix) || n.equals(exact))
                .findFirst()
                .orElse(null);
    }

    private static VaeDecoderIo.Attention attention(SignatureCheck attn, long hd) {
        List<String> inputs = attn.inputNames().containsAll(CHUNK_INPUTS)
                ? CHUNK_INPUTS
                : List.of(attn.inputAt("q_chunk", 0, 3), attn.inputAt("kt", 1, 3), attn.inputAt("v", 2, 3));
        TensorSignature qChunk = attn.input(inputs.get(0), TensorRule.of("query rows", TypeSets.FLOATS, 1, 1, -1, hd));
        TensorSignature kt = attn.input(inputs.get(1), TensorRule.of("k transposed", TypeSets.FLOATS, 1, 1, hd, -1));
        TensorSignature v = attn.input(inputs.get(2), TensorRule.of("v", TypeSets.FLOATS, 1, 1, -1, hd));
        attn.requireOnlyInputs(new LinkedHashSet<>(inputs));
        String out = attn.findOutput(List.of("attn_chunk")).orElseGet(() -> attn.outputAt("attention", 0, 1));
        return new VaeDecoderIo.Attention(
                attn.entry().key(),
                qChunk,
                kt,
                v,
                attn.output(out, TensorRule.of("attention rows", TypeSets.FLOATS, 1, 1, -1, hd)));
    }

    /**
     * What the post stages start from.
     *
     * @param stageZero the first post graph's residual and attention input names
     * @param preResidual the pre stage's residual output name
     * @param residual the residual's producer
     * @param attention the attention result's producer
     * @param headDim the attention head dim, or -1 when unknown
     */
    private record ChainStart(
            StageZeroInputs stageZero,
            String preResidual,
            VaeDecoderIo.Source residual,
            VaeDecoderIo.Source attention,
            long headDim) {}

    private static List<VaeDecoderIo.PostStage> postStages(
            List<String> keys, Function<String, SignatureCheck> checks, ChainStart start) {
        StageZeroInputs stageZero = start.stageZero();
        VaeDecoderIo.Source residual = start.residual();
        VaeDecoderIo.Source attention = start.attention();
        // Tensor names a later stage can ask for, as the engine's name → tensor map holds them.
        Map<String, VaeDecoderIo.Source> byName = new LinkedHashMap<>();
        byName.put(start.preResidual(), residual);
        byName.put(stageZero.residual(), residual);
        byName.put(stageZero.attention(), attention);
        List<SignatureCheck> stages = new ArrayList<>();
        List<List<VaeDecoderIo.Feed>> feeds = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            SignatureCheck stage = checks.apply(keys.get(i));
            stages.add(stage);
            List<VaeDecoderIo.Feed> stageFeeds = new ArrayList<>();
            if (i == 0) {
                stageFeeds.add(new VaeDecoderIo.Feed(
                        stage.input(stageZero.residual(), TensorRule.of("residual", TypeSets.FLOATS, 1, -1, -1, -1)),
                        residual));
                stageFeeds.add(new VaeDecoderIo.Feed(
                        stage.input(
                                stageZero.attention(),
                                TensorRule.of("attention result", TypeSets.FLOATS, 1, 1, -1, start.headDim())),
                        attention));
            } else {
                stageFeeds = laterStageFeeds(stage, byName, stages.get(i - 1), i - 1);
            }
            feeds.add(stageFeeds);
            if (i < keys.size() - 1) {
                for (String out : stage.signature().outputNames()) {
                    TensorSignature t = stage.signature().output(out).orElseThrow();
                    byName.put(out, new VaeDecoderIo.Source(VaeDecoderIo.SourceKind.STAGE, i, out, t.elementType()));
                }
            }
        }
        List<VaeDecoderIo.PostStage> post = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            SignatureCheck stage = stages.get(i);
            List<TensorSignature> outputs = new ArrayList<>();
            if (i == keys.size() - 1) {
                String image = stage.findOutput(IMAGE).orElseGet(() -> stage.outputAt("image", 0, 1));
                outputs.add(stage.output(image, imageRule()));
            } else {
                for (String out : stage.signature().outputNames()) {
                    if (consumed(feeds, i, out)) {
                        TensorSignature t = stage.signature().output(out).orElseThrow();
                        outputs.add(stage.output(out, TensorRule.anyShape("stage output", TypeSets.FLOATS, t.rank())));
                    }
                }
                if (outputs.isEmpty()) {
                    throw stage.error("none of its outputs " + stage.signature().outputNames() + " feeds a later "
                            + "post stage");
                }
            }
            post.add(new VaeDecoderIo.PostStage(keys.get(i), feeds.get(i), outputs));
        }
        return post;
    }

    private static List<VaeDecoderIo.Feed> laterStageFeeds(
            SignatureCheck stage, Map<String, VaeDecoderIo.Source> byName, SignatureCheck previous, int previousIndex) {
        List<VaeDecoderIo.Feed> feeds = new ArrayList<>();
        List<String> unmatched = new ArrayList<>();
        for (String name : stage.signature().inputNames()) {
            VaeDecoderIo.Source source = byName.get(name);
            if (source == null) {
                unmatched.add(name);
            } else {
                feeds.add(feed(stage, name, source));
            }
        }
        boolean previousConsumed = feeds.stream()
                .anyMatch(f -> f.source().kind() == VaeDecoderIo.SourceKind.STAGE
                        && f.source().stage() == previousIndex);
        if (unmatched.size() > 1 || (unmatched.size() == 1 && previousConsumed)) {
            throw stage.error("input(s) " + unmatched + " match no tensor of the earlier decoder stages "
                    + byName.keySet() + ", and only one input can take the previous stage's output by position"
                    + (previousConsumed ? " (another input already reads it by name)" : ""));
        }
        if (unmatched.size() == 1) {
            String out = previous.outputAt("stage output", 0, 1);
            TensorSignature t = previous.signature()
                    .output(out)
                    .orElseThrow(() -> previous.error("output '" + out + "' is missing; the graph's outputs are "
                            + previous.signature().outputNames()));
            feeds.add(feed(
                    stage,
                    unmatched.get(0),
                    new VaeDecoderIo.Source(VaeDecoderIo.SourceKind.STAGE, previousIndex, out, t.elementType())));
        }
        return feeds;
    }

    private static VaeDecoderIo.Feed feed(SignatureCheck stage, String input, VaeDecoderIo.Source source) {
        TensorSignature t = stage.signature().input(input).orElseThrow();
        return new VaeDecoderIo.Feed(
                stage.input(input, TensorRule.anyShape(describe(source), TypeSets.FLOATS, t.rank())), source);
    }

    private static String describe(VaeDecoderIo.Source source) {
        return switch (source.kind()) {
            case RESIDUAL -> "residual";
            case ATTENTION -> "attention result";
            case STAGE -> "output '" + source.output() + "' of post stage " + source.stage();
        };
    }

    private static boolean consumed(List<List<VaeDecoderIo.Feed>> feeds, int stage, String output) {
        for (List<VaeDecoderIo.Feed> stageFeeds : feeds) {
            for (VaeDecoderIo.Feed f : stageFeeds) {
                if (f.source().kind() == VaeDecoderIo.SourceKind.STAGE
                        && f.source().stage() == stage
                        && f.source().output().equals(output)) {
                    return true;
                }
            }
        }
        return false;
    }
}
