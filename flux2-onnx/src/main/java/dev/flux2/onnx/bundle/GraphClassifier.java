package dev.flux2.onnx.bundle;

import dev.flux2.spi.LatentGrid;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Recognises what a graph is from its signature alone: the names of its inputs and outputs (those of
 * {@link KnownNames}), their element types and ranks, and the sizes it fixes (a latent of 128 channels, an image of 3).
 * The file name plays no part. A graph matches at most one role:
 *
 * <ul>
 *   <li>text encoder: integer token ids (and optionally a mask and position ids), nothing else, and a float context
 *       of rank 3;</li>
 *   <li>denoiser: latent tokens, image ids, text context and text ids, plus one timestep; a fused multi-step denoiser
 *       has {@code timestep_i}/{@code dt_i} inputs or a timestep list of fixed length above 1, or returns the final
 *       {@code latent} instead of a velocity;</li>
 *   <li>VAE decoder: one latent input of rank 4 (128 channels where fixed) and a 3-channel image output of rank 4;</li>
 *   <li>VAE encoder: one image input of rank 4 (3 channels where fixed) and a 128-channel latent output.</li>
 * </ul>
 *
 * Graphs of a split VAE decoder (pre-attention, attention chunk, post stages) and anything else match no role; the note
 * says why. Stateless.
 */
public final class GraphClassifier {
    private static final Set<ElementType> INTEGERS = Set.of(ElementType.INT64, ElementType.INT32);
    private static final Pattern SCHEDULE_INPUT = Pattern.compile("(timestep|dt)_\\d+");
    private static final int IMAGE_CHANNELS = 3;

    private GraphClassifier() {}

    /**
     * @param signature a graph's real signature
     * @return what it is
     */
    public static GraphClassification classify(GraphSignature signature) {
        Optional<GraphClassification> found = textEncoder(signature)
                .or(() -> denoiser(signature))
                .or(() -> vaeDecoder(signature))
                .or(() -> vaeEncoder(signature));
        return found.orElseGet(() -> unknown(signature, whyUnknown(signature)));
    }

    private static Optional<GraphClassification> textEncoder(GraphSignature s) {
        Optional<TensorSignature> ids = first(s.inputs(), KnownNames.TOKEN_IDS);
        if (ids.isEmpty() || !INTEGERS.contains(ids.get().elementType()) || !rank(ids.get(), 2)) {
            return Optional.empty();
        }
        for (TensorSignature in : s.inputs()) {
            boolean known = KnownNames.TOKEN_IDS.contains(in.name())
                    || KnownNames.ATTENTION_MASK.contains(in.name())
                    || KnownNames.POSITION_IDS.contains(in.name());
            if (!known || !INTEGERS.contains(in.elementType())) {
                return Optional.empty();
            }
        }
        Optional<TensorSignature> ctx = first(s.outputs(), KnownNames.TEXT_CONTEXT_OUT)
                .or(() -> s.outputs().stream().findFirst());
        if (ctx.isEmpty() || !ctx.get().elementType().isHostFloat() || !rank(ctx.get(), 3)) {
            return Optional.empty();
        }
        SignatureFamily family = switch (ctx.get().name()) {
            case "ctx" -> SignatureFamily.MARKSHARK2;
            case "prompt_embeds" -> SignatureFamily.HLHC;
            default -> SignatureFamily.OTHER;
        };
        return Optional.of(known(s, GraphKind.TEXT_ENCODER, family));
    }

    private static Optional<GraphClassification> denoiser(GraphSignature s) {
        Optional<TensorSignature> x = first(s.inputs(), KnownNames.LATENT_TOKENS);
        Optional<TensorSignature> xIds = first(s.inputs(), KnownNames.IMAGE_IDS);
        Optional<TensorSignature> ctx = first(s.inputs(), KnownNames.TEXT_CONTEXT_IN);
        Optional<TensorSignature> ctxIds = first(s.inputs(), KnownNames.TEXT_IDS);
        if (x.isEmpty() || xIds.isEmpty() || ctx.isEmpty() || ctxIds.isEmpty()) {
            return Optional.empty();
        }
        Optional<TensorSignature> timestep = first(s.inputs(), KnownNames.TIMESTEP);
        boolean scheduleInputs = s.inputs().stream()
                .anyMatch(t -> SCHEDULE_INPUT.matcher(t.name()).matches());
        boolean timestepList =
                timestep.filter(GraphClassifier::holdsSeveralValues).isPresent();
        boolean finalLatent = first(s.outputs(), KnownNames.FINAL_LATENT).isPresent()
                && first(s.outputs(), KnownNames.VELOCITY).isEmpty();
        SignatureFamily family = denoiserFamily(x.get(), timestep, finalLatent, s);
        if (scheduleInputs || timestepList || finalLatent) {
            return Optional.of(known(s, GraphKind.FUSED_DENOISER, family));
        }
        if (timestep.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(known(s, GraphKind.DENOISER, family));
    }

    private static SignatureFamily denoiserFamily(
            TensorSignature x, Optional<TensorSignature> timestep, boolean fused, GraphSignature s) {
        boolean markshark = x.name().equals("x")
                && s.input("x_ids").isPresent()
                && s.input("ctx").isPresent()
                && s.input("ctx_ids").isPresent()
                && (fused || timestep.map(t -> t.name().equals("timesteps")).orElse(false));
        boolean hlhc = x.name().equals("hidden_states")
                && s.input("img_ids").isPresent()
                && s.input("encoder_hidden_states").isPresent()
                && s.input("txt_ids").isPresent()
                && (fused || timestep.map(t -> t.name().equals("timestep")).orElse(false));
        return markshark ? SignatureFamily.MARKSHARK2 : hlhc ? SignatureFamily.HLHC : SignatureFamily.OTHER;
    }

    /** A timestep input of fixed shape holding more than one value is a fused graph's schedule list. */
    private static boolean holdsSeveralValues(TensorSignature t) {
        long values = 1;
        for (Dim d : t.dims()) {
            if (!d.isFixed()) {
                return false;
            }
            values *= d.value();
        }
        return t.rankKnown() && t.rank() > 0 && values > 1;
    }

    private static Optional<GraphClassification> vaeDecoder(GraphSignature s) {
        if (s.inputs().size() != 1
                || !KnownNames.LATENT.contains(s.inputs().get(0).name())) {
            return Optional.empty();
        }
        TensorSignature z = s.inputs().get(0);
        if (!z.elementType().isHostFloat() || !rank(z, 4) || !channels(z, LatentGrid.CHANNELS)) {
            return Optional.empty();
        }
        Optional<TensorSignature> image = first(s.outputs(), KnownNames.IMAGE_OUT)
                .or(() -> s.outputs().size() == 1 ? Optional.of(s.outputs().get(0)) : Optional.empty());
        if (image.isEmpty()
                || !image.get().elementType().isHostFloat()
                || !rank(image.get(), 4)
                || !channels(image.get(), IMAGE_CHANNELS)) {
            return Optional.empty();
        }
        SignatureFamily family = z.name().equals("z") && image.get().name().equals("image")
                ? SignatureFamily.MARKSHARK2
                : z.name().equals("latents") && image.get().name().equals("image")
                        ? SignatureFamily.HLHC
                        : SignatureFamily.OTHER;
        return Optional.of(known(s, GraphKind.VAE_DECODER, family));
    }

    private static Optional<GraphClassification> vaeEncoder(GraphSignature s) {
        if (s.inputs().size() != 1
                || !KnownNames.IMAGE_IN.contains(s.inputs().get(0).name())) {
            return Optional.empty();
        }
        TensorSignature image = s.inputs().get(0);
        if (!image.elementType().isHostFloat() || !rank(image, 4) || !channels(image, IMAGE_CHANNELS)) {
            return Optional.empty();
        }
        Optional<TensorSignature> z = first(s.outputs(), KnownNames.LATENT)
                .or(() -> s.outputs().size() == 1 ? Optional.of(s.outputs().get(0)) : Optional.empty());
        if (z.isEmpty()
                || !z.get().elementType().isHostFloat()
                || !rank(z.get(), 4)
                || !channels(z.get(), LatentGrid.CHANNELS)) {
            return Optional.empty();
        }
        SignatureFamily family = image.name().equals("image") && z.get().name().equals("z")
                ? SignatureFamily.MARKSHARK2
                : image.name().equals("image") && z.get().name().equals("latents")
                        ? SignatureFamily.HLHC
                        : SignatureFamily.OTHER;
        return Optional.of(known(s, GraphKind.VAE_ENCODER, family));
    }

    private static String whyUnknown(GraphSignature s) {
        List<String> inputs = s.inputs().stream().map(TensorSignature::name).toList();
        if (inputs.containsAll(List.of("q_chunk", "kt", "v"))) {
            return "the attention graph of a split VAE decoder, whose parts only a flux2-config.json puts in order";
        }
        if (s.inputs().size() == 1
                && KnownNames.LATENT.contains(inputs.get(0))
                && rank(s.inputs().get(0), 4)) {
            Dim channels = s.inputs().get(0).dimOrFree(1);
            if (channels.isFixed() && channels.value() != LatentGrid.CHANNELS) {
                return "takes a latent of " + channels.value() + " channels; a VAE decoder here takes the "
                        + "patchified, normalised latent of 128";
            }
            if (s.outputs().size() == 4) {
                return "the pre-attention part of a split VAE decoder, whose parts only a flux2-config.json puts in "
                        + "order";
            }
        }
        if (s.inputs().size() == 2 && s.inputs().stream().anyMatch(t -> t.name().startsWith("/decoder/"))) {
            return "a post-attention part of a split VAE decoder, whose parts only a flux2-config.json puts in order";
        }
        return "its inputs and outputs match no known text encoder, denoiser or VAE signature";
    }

    private static GraphClassification known(GraphSignature s, GraphKind role, SignatureFamily family) {
        return new GraphClassification(s, Optional.of(role), family, "");
    }

    private static GraphClassification unknown(GraphSignature s, String why) {
        return new GraphClassification(s, Optional.empty(), SignatureFamily.OTHER, why);
    }

    private static Optional<TensorSignature> first(List<TensorSignature> tensors, List<String> names) {
        for (String name : names) {
            for (TensorSignature t : tensors) {
                if (t.name().equals(name)) {
                    return Optional.of(t);
                }
            }
        }
        return Optional.empty();
    }

    /** A tensor of unknown rank takes any shape, so it passes. */
    private static boolean rank(TensorSignature t, int rank) {
        return !t.rankKnown() || t.rank() == rank;
    }

    /** Dimension 1 holds the channels: it passes when free or equal. */
    private static boolean channels(TensorSignature t, long channels) {
        Dim d = t.dimOrFree(1);
        return !d.isFixed() || d.value() == channels;
    }

    /** @return the names, for messages */
    static String names(List<TensorSignature> tensors) {
        return tensors.stream().map(TensorSignature::name).collect(Collectors.joining(", ", "[", "]"));
    }
}
