package dev.flux2.testkit;

import static dev.flux2.testkit.TensorElementType.FLOAT;

import java.util.ArrayList;
import java.util.List;

/**
 * The I/O of every synthetic graph: the real names, dtypes and ranks of docs/bundle-format.md §8 with the symbolic
 * dimension names of its §7. Dimensions the real bundle does not name (H/8 and H/2 of the VAE chain) get descriptive
 * names of their own. The spec's options change element types (activations, ids, tokens), ranks
 * ({@link BundleVariant#IDS_WITHOUT_BATCH}, {@link BundleVariant#SCALAR_TIMESTEP}), fixed sizes
 * ({@link BundleVariant#STATIC_SHAPES}) and the decoder graphs, never the names of the seed's tensors.
 */
public final class GraphSignatures {
    static final String H8 = "latent_height_x2";
    static final String W8 = "latent_width_x2";
    static final String H2 = "latent_height_x8";
    static final String W2 = "latent_width_x8";

    private final SyntheticBundleSpec spec;

    private GraphSignatures(SyntheticBundleSpec spec) {
        this.spec = spec;
    }

    /** @return the inputs of {@code graph} as the real bundle declares them (with the spec's variants) */
    public static List<Port> inputs(BundleGraph graph, SyntheticBundleSpec spec) {
        return new GraphSignatures(spec).inputs(graph);
    }

    /** @return the outputs of {@code graph} as the real bundle declares them (with the spec's variants) */
    public static List<Port> outputs(BundleGraph graph, SyntheticBundleSpec spec) {
        return new GraphSignatures(spec).outputs(graph);
    }

    private List<Port> inputs(BundleGraph graph) {
        TensorElementType a = spec.activationType(graph);
        int hd = spec.vaeHeadDim();
        switch (graph) {
            case TEXT_ENCODER: {
                List<Port> ports = new ArrayList<>(List.of(
                        Port.of("input_ids", spec.tokenType(), sym("batch"), sym("text_seq")),
                        Port.of("attention_mask", spec.tokenType(), sym("batch"), sym("text_seq"))));
                if (spec.has(BundleVariant.TEXT_POSITION_IDS)) {
                    ports.add(Port.of("position_ids", spec.tokenType(), sym("batch"), sym("text_seq")));
                }
                return List.copyOf(ports);
            }
            case TRANSFORMER:
                return List.of(
                        x(a),
                        xIds(),
                        spec.has(BundleVariant.SCALAR_TIMESTEP)
                                ? Port.of("timesteps", a)
                                : Port.of("timesteps", a, Dim.of(1)),
                        ctx(a),
                        ctxIds());
            case TRANSFORMER_FUSED_4STEP:
                return fusedInputs(a);
            case VAE_DECODER_PRE:
            case VAE_DECODER:
                return List.of(Port.of("z", a, sym("batch"), Dim.of(128), sym("latent_height"), sym("latent_width")));
            case VAE_DECODER_ATTN_CHUNK:
                return List.of(
                        Port.of("q_chunk", a, Dim.of(1), sym("heads"), sym("chunk_seq"), Dim.of(hd)),
                        Port.of("kt", a, Dim.of(1), sym("heads"), Dim.of(hd), sym("kv_seq")),
                        Port.of("v", a, Dim.of(1), sym("heads"), sym("kv_seq"), Dim.of(hd)));
            case VAE_DECODER_POST_STAGE_0:
            case VAE_DECODER_POST: {
                Port residual = residual(a);
                Port attention = Port.of(TensorNames.VAE_ATTENTION, a, Dim.of(1), Dim.of(1), sym("kv_seq"), Dim.of(hd));
                return spec.has(BundleVariant.REVERSED_STAGE_ZERO_INPUTS)
                        ? List.of(attention, residual)
                        : List.of(residual, attention);
            }
            case VAE_DECODER_POST_STAGE_1:
                return List.of(stage0Out(a));
            case VAE_DECODER_POST_STAGE_2:
                return List.of(stage1Out(a));
            case VAE_DECODER_POST_STAGE_3:
                return List.of(stage2Out(a));
            case VAE_ENCODER:
                return List.of(Port.of("image", a, Dim.of(1), Dim.of(3), sym("height"), sym("width")));
            default:
                throw new IllegalArgumentException("no signature for " + graph);
        }
    }

    private List<Port> outputs(BundleGraph graph) {
        TensorElementType a = spec.activationType(graph);
        int hd = spec.vaeHeadDim();
        switch (graph) {
            case TEXT_ENCODER:
                return List.of(ctx(a));
            case TRANSFORMER:
                return List.of(Port.of("pred", a, sym("batch"), sym("image_seq"), Dim.of(128)));
            case TRANSFORMER_FUSED_4STEP:
                return List.of(Port.of("latent", a, sym("batch"), sym("image_seq"), Dim.of(128)));
            case VAE_DECODER_PRE:
                return List.of(
                        residual(a),
                        Port.of(TensorNames.VAE_QUERY, a, Dim.of(1), Dim.of(1), sym("kv_seq"), Dim.of(hd)),
                        Port.of(TensorNames.VAE_KEY_TRANSPOSED, a, Dim.of(1), Dim.of(1), Dim.of(hd), sym("kv_seq")),
                        Port.of(TensorNames.VAE_VALUE, a, Dim.of(1), Dim.of(1), sym("kv_seq"), Dim.of(hd)));
            case VAE_DECODER_ATTN_CHUNK:
                return List.of(Port.of("attn_chunk", a, Dim.of(1), sym("heads"), sym("chunk_seq"), Dim.of(hd)));
            case VAE_DECODER_POST_STAGE_0:
                return List.of(stage0Out(a));
            case VAE_DECODER_POST_STAGE_1:
                return List.of(stage1Out(a));
            case VAE_DECODER_POST_STAGE_2:
                return List.of(stage2Out(a));
            case VAE_DECODER_POST_STAGE_3:
            case VAE_DECODER_POST:
            case VAE_DECODER:
                return List.of(Port.of("image", a, Dim.of(1), Dim.of(3), sym("height"), sym("width")));
            case VAE_ENCODER:
                return List.of(Port.of("z", a, Dim.of(1), Dim.of(128), sym("latent_height"), sym("latent_width")));
            default:
                throw new IllegalArgumentException("no signature for " + graph);
        }
    }

    private List<Port> fusedInputs(TensorElementType a) {
        List<Port> ports = new ArrayList<>();
        if (spec.fused() == FusedConvention.ENGINE) {
            ports.add(x(a));
            ports.add(xIds());
            ports.add(ctx(a));
            ports.add(ctxIds());
            for (int i = 0; i < 4; i++) {
                ports.add(Port.of("timestep_" + i, a, Dim.of(1)));
            }
            for (int i = 0; i < 4; i++) {
                ports.add(Port.of("dt_" + i, FLOAT, Dim.of(1)));
            }
        } else {
            ports.add(x(a));
            ports.add(xIds());
            ports.add(Port.of("timesteps", a, Dim.of(4)));
            ports.add(ctx(a));
            ports.add(ctxIds());
        }
        return List.copyOf(ports);
    }

    /**
     * A named dimension, or its size at the default resolution for {@link BundleVariant#STATIC_SHAPES}; the hlhc
     * export fixes the batch and the text length ([1, L] token ids, [1, L, D] context).
     */
    private Dim sym(String name) {
        if (spec.layout() == ExportLayout.HLHC) {
            if (name.equals("batch") || name.equals("heads")) {
                return Dim.of(1);
            }
            if (name.equals("text_seq")) {
                return Dim.of(spec.textSequenceLength());
            }
        }
        if (!spec.has(BundleVariant.STATIC_SHAPES)) {
            return Dim.sym(name);
        }
        long gh = spec.defaultHeight() / 16;
        long gw = spec.defaultWidth() / 16;
        long s = 4 * gh * gw;
        return Dim.of(
                switch (name) {
                    case "batch", "heads" -> 1;
                    case "text_seq" -> spec.textSequenceLength();
                    case "image_seq" -> gh * gw;
                    case "latent_height" -> gh;
                    case "latent_width" -> gw;
                    case "height" -> 16 * gh;
                    case "width" -> 16 * gw;
                    case "kv_seq" -> s;
                    case "chunk_seq" -> Math.min(spec.vaeChunkSize(), s);
                    case H8 -> 2 * gh;
                    case W8 -> 2 * gw;
                    case H2 -> 8 * gh;
                    case W2 -> 8 * gw;
                    default -> throw new IllegalStateException("no static size for dimension " + name);
                });
    }

    private Port x(TensorElementType a) {
        return Port.of("x", a, sym("batch"), sym("image_seq"), Dim.of(128));
    }

    private Port xIds() {
        return spec.has(BundleVariant.IDS_WITHOUT_BATCH)
                ? Port.of("x_ids", spec.idType(), sym("image_seq"), Dim.of(4))
                : Port.of("x_ids", spec.idType(), sym("batch"), sym("image_seq"), Dim.of(4));
    }

    private Port ctx(TensorElementType a) {
        return Port.of("ctx", a, sym("batch"), sym("text_seq"), Dim.of(spec.contextDim()));
    }

    private Port ctxIds() {
        return spec.has(BundleVariant.IDS_WITHOUT_BATCH)
                ? Port.of("ctx_ids", spec.idType(), sym("text_seq"), Dim.of(4))
                : Port.of("ctx_ids", spec.idType(), sym("batch"), sym("text_seq"), Dim.of(4));
    }

    private Port residual(TensorElementType a) {
        return Port.of(
                TensorNames.VAE_RESIDUAL, a, Dim.of(1), Dim.of(SyntheticDims.RESIDUAL_CHANNELS), sym(H8), sym(W8));
    }

    private Port stage0Out(TensorElementType a) {
        return Port.of(
                TensorNames.VAE_STAGE0_OUT, a, Dim.of(1), Dim.of(SyntheticDims.STAGE0_CHANNELS), sym(H2), sym(W2));
    }

    private Port stage1Out(TensorElementType a) {
        return Port.of(
                TensorNames.VAE_STAGE1_OUT,
                a,
                Dim.of(1),
                Dim.of(SyntheticDims.STAGE1_CHANNELS),
                sym("height"),
                sym("width"));
    }

    private Port stage2Out(TensorElementType a) {
        return Port.of(
                TensorNames.VAE_STAGE2_OUT,
                a,
                Dim.of(1),
                Dim.of(SyntheticDims.STAGE2_CHANNELS),
                sym("height"),
                sym("width"));
    }
}
