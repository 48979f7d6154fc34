package dev.flux2.testkit;

import static dev.flux2.testkit.TensorElementType.FLOAT;
import static dev.flux2.testkit.TensorElementType.FLOAT16;
import static dev.flux2.testkit.TensorElementType.INT64;

import java.util.ArrayList;
import java.util.List;

/**
 * The I/O of every synthetic graph: the real names, dtypes and ranks of onnx-bundle.md §6 with the symbolic
 * dimension names of §5. Dimensions the real bundle does not name (H/8 and H/2 of the VAE chain) get descriptive
 * names of their own.
 */
final class GraphSignatures {
    static final String H8 = "latent_height_x2";
    static final String W8 = "latent_width_x2";
    static final String H2 = "latent_height_x8";
    static final String W2 = "latent_width_x8";

    private GraphSignatures() {
    }

    static List<Port> inputs(BundleGraph graph, SyntheticBundleSpec spec) {
        int d = spec.contextDim();
        int hd = spec.vaeHeadDim();
        switch (graph) {
            case TEXT_ENCODER:
                return List.of(Port.of("input_ids", INT64, sym("batch"), sym("text_seq")),
                        Port.of("attention_mask", INT64, sym("batch"), sym("text_seq")));
            case TRANSFORMER:
                return List.of(x(), xIds(), Port.of("timesteps", FLOAT16, Dim.of(1)), ctx(d), ctxIds());
            case TRANSFORMER_FUSED_4STEP:
                return fusedInputs(spec);
            case VAE_DECODER_PRE:
                return List.of(Port.of("z", FLOAT16, sym("batch"), Dim.of(128), sym("latent_height"),
                        sym("latent_width")));
            case VAE_DECODER_ATTN_CHUNK:
                return List.of(Port.of("q_chunk", FLOAT16, Dim.of(1), sym("heads"), sym("chunk_seq"), Dim.of(hd)),
                        Port.of("kt", FLOAT16, Dim.of(1), sym("heads"), Dim.of(hd), sym("kv_seq")),
                        Port.of("v", FLOAT16, Dim.of(1), sym("heads"), sym("kv_seq"), Dim.of(hd)));
            case VAE_DECODER_POST_STAGE_0:
                return List.of(residual(), Port.of(TensorNames.VAE_ATTENTION, FLOAT16, Dim.of(1), Dim.of(1),
                        sym("kv_seq"), Dim.of(hd)));
            case VAE_DECODER_POST_STAGE_1:
                return List.of(stage0Out());
            case VAE_DECODER_POST_STAGE_2:
                return List.of(stage1Out());
            case VAE_DECODER_POST_STAGE_3:
                return List.of(stage2Out());
            case VAE_ENCODER:
                return List.of(Port.of("image", FLOAT16, Dim.of(1), Dim.of(3), sym("height"), sym("width")));
            default:
                throw new IllegalArgumentException("no signature for " + graph);
        }
    }

    static List<Port> outputs(BundleGraph graph, SyntheticBundleSpec spec) {
        int hd = spec.vaeHeadDim();
        switch (graph) {
            case TEXT_ENCODER:
                return List.of(ctx(spec.contextDim()));
            case TRANSFORMER:
                return List.of(Port.of("pred", FLOAT16, sym("batch"), sym("image_seq"), Dim.of(128)));
            case TRANSFORMER_FUSED_4STEP:
                return List.of(Port.of("latent", FLOAT16, sym("batch"), sym("image_seq"), Dim.of(128)));
            case VAE_DECODER_PRE:
                return List.of(residual(),
                        Port.of(TensorNames.VAE_QUERY, FLOAT16, Dim.of(1), Dim.of(1), sym("kv_seq"), Dim.of(hd)),
                        Port.of(TensorNames.VAE_KEY_TRANSPOSED, FLOAT16, Dim.of(1), Dim.of(1), Dim.of(hd),
                                sym("kv_seq")),
                        Port.of(TensorNames.VAE_VALUE, FLOAT16, Dim.of(1), Dim.of(1), sym("kv_seq"), Dim.of(hd)));
            case VAE_DECODER_ATTN_CHUNK:
                return List.of(Port.of("attn_chunk", FLOAT16, Dim.of(1), sym("heads"), sym("chunk_seq"),
                        Dim.of(hd)));
            case VAE_DECODER_POST_STAGE_0:
                return List.of(stage0Out());
            case VAE_DECODER_POST_STAGE_1:
                return List.of(stage1Out());
            case VAE_DECODER_POST_STAGE_2:
                return List.of(stage2Out());
            case VAE_DECODER_POST_STAGE_3:
                return List.of(Port.of("image", FLOAT16, Dim.of(1), Dim.of(3), sym("height"), sym("width")));
            case VAE_ENCODER:
                return List.of(Port.of("z", FLOAT16, Dim.of(1), Dim.of(128), sym("latent_height"),
                        sym("latent_width")));
            default:
                throw new IllegalArgumentException("no signature for " + graph);
        }
    }

    private static List<Port> fusedInputs(SyntheticBundleSpec spec) {
        List<Port> ports = new ArrayList<>();
        if (spec.fused() == FusedConvention.ENGINE) {
            ports.add(x());
            ports.add(xIds());
            ports.add(ctx(spec.contextDim()));
            ports.add(ctxIds());
            for (int i = 0; i < 4; i++) {
                ports.add(Port.of("timestep_" + i, FLOAT16, Dim.of(1)));
            }
            for (int i = 0; i < 4; i++) {
                ports.add(Port.of("dt_" + i, FLOAT, Dim.of(1)));
            }
        } else {
            ports.add(x());
            ports.add(xIds());
            ports.add(Port.of("timesteps", FLOAT16, Dim.of(4)));
            ports.add(ctx(spec.contextDim()));
            ports.add(ctxIds());
        }
        return List.copyOf(ports);
    }

    private static Dim sym(String name) {
        return Dim.sym(name);
    }

    private static Port x() {
        return Port.of("x", FLOAT16, sym("batch"), sym("image_seq"), Dim.of(128));
    }

    private static Port xIds() {
        return Port.of("x_ids", FLOAT, sym("batch"), sym("image_seq"), Dim.of(4));
    }

    private static Port ctx(int contextDim) {
        return Port.of("ctx", FLOAT16, sym("batch"), sym("text_seq"), Dim.of(contextDim));
    }

    private static Port ctxIds() {
        return Port.of("ctx_ids", FLOAT, sym("batch"), sym("text_seq"), Dim.of(4));
    }

    private static Port residual() {
        return Port.of(TensorNames.VAE_RESIDUAL, FLOAT16, Dim.of(1), Dim.of(SyntheticDims.RESIDUAL_CHANNELS),
                sym(H8), sym(W8));
    }

    private static Port stage0Out() {
        return Port.of(TensorNames.VAE_STAGE0_OUT, FLOAT16, Dim.of(1), Dim.of(SyntheticDims.STAGE0_CHANNELS),
                sym(H2), sym(W2));
    }

    private static Port stage1Out() {
        return Port.of(TensorNames.VAE_STAGE1_OUT, FLOAT16, Dim.of(1), Dim.of(SyntheticDims.STAGE1_CHANNELS),
                sym("height"), sym("width"));
    }

    private static Port stage2Out() {
        return Port.of(TensorNames.VAE_STAGE2_OUT, FLOAT16, Dim.of(1), Dim.of(SyntheticDims.STAGE2_CHANNELS),
                sym("height"), sym("width"));
    }
}
