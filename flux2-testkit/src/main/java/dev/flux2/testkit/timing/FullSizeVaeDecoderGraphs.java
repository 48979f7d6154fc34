package dev.flux2.testkit.timing;

import static dev.flux2.testkit.TensorElementType.FLOAT16;

import ai.onnx.proto.OnnxMl.ModelProto;
import dev.flux2.testkit.BundleGraph;
import dev.flux2.testkit.Dim;
import dev.flux2.testkit.GraphBuilder;
import dev.flux2.testkit.Port;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.TensorNames;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * FLUX.2's VAE decoder at its real channels ({@link VaeDecoderShape}) with random fp16 weights, split as the seed
 * export splits it (docs/bundle-format.md §10.1), under the seed's tensor names:
 *
 * <ul>
 *   <li>pre: batch-norm de-normalisation, 2×2 unpatchify, conv_in (3×3, 32 → 512), the mid block's first ResNet
 *       (the residual), GroupNorm and the q, k, v projections of the mid-block attention (q, k scaled by d^−¼);
 *   <li>attention chunk: softmax(q·kᵀ)·v;
 *   <li>post 0: the attention's output projection plus the residual, the mid block's second ResNet, the H/8 and
 *       H/4 levels (3 ResNets each, nearest ×2 upsampling with a 3×3 conv after each) and the H/2 level (3 ResNets,
 *       512 → 256);
 *   <li>post 1: upsampling to H and the first ResNet of the last level (256 → 128);
 *   <li>post 2: its other two ResNets;
 *   <li>post 3: GroupNorm, SiLU and conv_out (3×3, 128 → 3) → image.
 * </ul>
 *
 * A ResNet block is GroupNorm, SiLU, 3×3 conv, GroupNorm, SiLU, 3×3 conv plus the input (through a 1×1 conv where
 * the channels change); GroupNorm is written as PyTorch's ONNX export writes it below opset 18 (Reshape,
 * InstanceNormalization, Reshape, Mul, Add). Everything is fp16. Nothing meaningful is computed: the same work
 * per pixel as the real decoder, for timing.
 */
final class FullSizeVaeDecoderGraphs {
    private static final String H8 = "latent_height_x2";
    private static final String W8 = "latent_width_x2";
    private static final String H2 = "latent_height_x8";
    private static final String W2 = "latent_width_x8";

    private final VaeDecoderShape shape;
    private final SyntheticBundleSpec signature;
    private final SplittableRandom rnd;
    private GraphBuilder b;

    FullSizeVaeDecoderGraphs(VaeDecoderShape shape, SyntheticBundleSpec signature, long seed) {
        this.shape = shape;
        this.signature = signature;
        this.rnd = new SplittableRandom(seed);
    }

    /** @return the graphs in chain order: pre, attention chunk, post 0 … 3 */
    List<ModelProto> build() {
        return List.of(pre(), attentionChunk(), post0(), post1(), post2(), post3());
    }

    /** @return the graph keys of {@link #build()}'s graphs, in the same order */
    static List<BundleGraph> graphs() {
        return List.of(
                BundleGraph.VAE_DECODER_PRE,
                BundleGraph.VAE_DECODER_ATTN_CHUNK,
                BundleGraph.VAE_DECODER_POST_STAGE_0,
                BundleGraph.VAE_DECODER_POST_STAGE_1,
                BundleGraph.VAE_DECODER_POST_STAGE_2,
                BundleGraph.VAE_DECODER_POST_STAGE_3);
    }

    private ModelProto pre() {
        b = new GraphBuilder(BundleGraph.VAE_DECODER_PRE, signature);
        int mid = shape.midChannels();
        String z = b.input(port("z", fixed(1), fixed(128), sym("latent_height"), sym("latent_width")), FLOAT16);
        String u = b.op(
                "Add",
                b.op("Mul", z, half(random(128, 0.8f, 1.2f), 1, 128, 1, 1)),
                half(random(128, -0.1f, 0.1f), 1, 128, 1, 1));
        String patches = b.op(
                "DepthToSpace",
                List.of(u),
                GraphBuilder.attrInt("blocksize", 2),
                GraphBuilder.attrString("mode", "CRD"));
        String x = conv(patches, shape.latentChannels(), mid, 3);
        String residual = resnet(x, mid, mid);
        b.output(residual, residualPort());
        String n = groupNorm(residual, mid);
        String tokens = b.op(
                "Transpose",
                List.of(b.op("Reshape", n, b.constLong(new long[] {1, 1, mid, -1}, 4))),
                GraphBuilder.attrInts("perm", 0, 1, 3, 2));
        String scale = b.cast(b.scalar((float) Math.pow(mid, -0.25)), FLOAT16);
        String q = b.op("Mul", projection(tokens, mid), scale);
        String k = b.op("Mul", projection(tokens, mid), scale);
        String kt = b.op("Transpose", List.of(k), GraphBuilder.attrInts("perm", 0, 1, 3, 2));
        String v = projection(tokens, mid);
        b.output(q, port(TensorNames.VAE_QUERY, fixed(1), fixed(1), sym("kv_seq"), fixed(mid)));
        b.output(kt, port(TensorNames.VAE_KEY_TRANSPOSED, fixed(1), fixed(1), fixed(mid), sym("kv_seq")));
        b.output(v, port(TensorNames.VAE_VALUE, fixed(1), fixed(1), sym("kv_seq"), fixed(mid)));
        return b.build();
    }

    private ModelProto attentionChunk() {
        b = new GraphBuilder(BundleGraph.VAE_DECODER_ATTN_CHUNK, signature);
        int d = shape.midChannels();
        String q = b.input(port("q_chunk", fixed(1), sym("heads"), sym("chunk_seq"), fixed(d)), FLOAT16);
        String kt = b.input(port("kt", fixed(1), sym("heads"), fixed(d), sym("kv_seq")), FLOAT16);
        String v = b.input(port("v", fixed(1), sym("heads"), sym("kv_seq"), fixed(d)), FLOAT16);
        String probs = b.op("Softmax", List.of(b.op("MatMul", q, kt)), GraphBuilder.attrInt("axis", -1));
        b.output(b.op("MatMul", probs, v), port("attn_chunk", fixed(1), sym("heads"), sym("chunk_seq"), fixed(d)));
        return b.build();
    }

    private ModelProto post0() {
        b = new GraphBuilder(BundleGraph.VAE_DECODER_POST_STAGE_0, signature);
        int mid = shape.midChannels();
        String residual = b.input(residualPort(), FLOAT16);
        String attn = b.input(port(TensorNames.VAE_ATTENTION, fixed(1), fixed(1), sym("kv_seq"), fixed(mid)), FLOAT16);
        String channelsFirst = b.op("Transpose", List.of(attn), GraphBuilder.attrInts("perm", 0, 1, 3, 2));
        String nchw = b.op("Reshape", channelsFirst, b.op("Shape", residual));
        String x = b.op("Add", conv(nchw, mid, mid, 1), residual);
        x = resnet(x, mid, mid);
        for (int level = 3; level >= 1; level--) {
            int in = level == 3 ? mid : shape.channels(level + 1);
            int out = shape.channels(level);
            for (int i = 0; i < shape.blocksPerLevel(); i++) {
                x = resnet(x, i == 0 ? in : out, out);
            }
            if (level > 1) {
                x = upsample(x, out);
            }
        }
        b.output(x, stagePort(TensorNames.VAE_STAGE0_OUT, shape.channels(1), sym(H2), sym(W2)));
        return b.build();
    }

    private ModelProto post1() {
        b = new GraphBuilder(BundleGraph.VAE_DECODER_POST_STAGE_1, signature);
        int c1 = shape.channels(1);
        String x = b.input(stagePort(TensorNames.VAE_STAGE0_OUT, c1, sym(H2), sym(W2)), FLOAT16);
        x = resnet(upsample(x, c1), c1, shape.channels(0));
        b.output(x, stagePort(TensorNames.VAE_STAGE1_OUT, shape.channels(0), sym("height"), sym("width")));
        return b.build();
    }

    private ModelProto post2() {
        b = new GraphBuilder(BundleGraph.VAE_DECODER_POST_STAGE_2, signature);
        int c0 = shape.channels(0);
        String x = b.input(stagePort(TensorNames.VAE_STAGE1_OUT, c0, sym("height"), sym("width")), FLOAT16);
        for (int i = 1; i < shape.blocksPerLevel(); i++) {
            x = resnet(x, c0, c0);
        }
        b.output(x, stagePort(TensorNames.VAE_STAGE2_OUT, c0, sym("height"), sym("width")));
        return b.build();
    }

    private ModelProto post3() {
        b = new GraphBuilder(BundleGraph.VAE_DECODER_POST_STAGE_3, signature);
        int c0 = shape.channels(0);
        String x = b.input(stagePort(TensorNames.VAE_STAGE2_OUT, c0, sym("height"), sym("width")), FLOAT16);
        String image = conv(silu(groupNorm(x, c0)), c0, 3, 3);
        b.output(image, port("image", fixed(1), fixed(3), sym("height"), sym("width")));
        return b.build();
    }

    private String resnet(String x, int in, int out) {
        String h = conv(silu(groupNorm(x, in)), in, out, 3);
        h = conv(silu(groupNorm(h, out)), out, out, 3);
        String shortcut = in == out ? x : conv(x, in, out, 1);
        return b.op("Add", shortcut, h);
    }

    /** Nearest ×2, then a 3×3 conv. */
    private String upsample(String x, int channels) {
        String up = b.op(
                "Resize",
                List.of(x, "", b.constFloat(new float[] {1, 1, 2, 2}, 4)),
                GraphBuilder.attrString("mode", "nearest"),
                GraphBuilder.attrString("coordinate_transformation_mode", "asymmetric"),
                GraphBuilder.attrString("nearest_mode", "floor"));
        return conv(up, channels, channels, 3);
    }

    /** GroupNorm as exported below opset 18: Reshape [1, G, −1], InstanceNormalization, Reshape back, affine. */
    private String groupNorm(String x, int channels) {
        int g = shape.groups();
        float[] ones = new float[g];
        Arrays.fill(ones, 1f);
        String grouped = b.op("Reshape", x, b.constLong(new long[] {0, g, -1}, 3));
        String normed = b.op("InstanceNormalization", grouped, half(ones, g), half(new float[g], g));
        String back = b.op("Reshape", normed, b.op("Shape", x));
        return b.op(
                "Add",
                b.op("Mul", back, half(random(channels, 0.9f, 1.1f), channels, 1, 1)),
                half(random(channels, -0.05f, 0.05f), channels, 1, 1));
    }

    private String silu(String x) {
        return b.op("Mul", x, b.op("Sigmoid", x));
    }

    /** A k×k conv with bias, weights uniform in ±√(3/fan_in) (unit gain), padding k/2. */
    private String conv(String x, int in, int out, int k) {
        float a = (float) Math.sqrt(3.0 / (in * k * k));
        String w = half(random(out * in * k * k, -a, a), out, in, k, k);
        String bias = half(random(out, -0.02f, 0.02f), out);
        int pad = k / 2;
        return b.op(
                "Conv",
                List.of(x, w, bias),
                GraphBuilder.attrInts("kernel_shape", k, k),
                GraphBuilder.attrInts("pads", pad, pad, pad, pad));
    }

    /** tokens [1,1,S,C] · W [C,C] + bias. */
    private String projection(String tokens, int c) {
        float a = (float) Math.sqrt(3.0 / c);
        return b.op("Add", b.op("MatMul", tokens, half(random(c * c, -a, a), c, c)), half(random(c, -0.02f, 0.02f), c));
    }

    private String half(float[] values, long... dims) {
        return b.constHalf(values, dims);
    }

    private float[] random(int n, float low, float high) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = low + (high - low) * (float) rnd.nextDouble();
        }
        return v;
    }

    private Port residualPort() {
        return stagePort(TensorNames.VAE_RESIDUAL, shape.midChannels(), sym(H8), sym(W8));
    }

    private static Port stagePort(String name, int channels, Dim h, Dim w) {
        return port(name, fixed(1), fixed(channels), h, w);
    }

    private static Port port(String name, Dim... dims) {
        return new Port(name, FLOAT16, new ArrayList<>(List.of(dims)));
    }

    private static Dim fixed(long size) {
        return new Dim(size, null);
    }

    private static Dim sym(String name) {
        return new Dim(-1, name);
    }
}
