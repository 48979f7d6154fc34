package dev.flux2.testkit;

import java.util.Objects;

/**
 * Independent pure-Java evaluation of exactly the math the synthetic graphs compute. Weights are regenerated from
 * the spec's seed (never read back from the written files). Inputs are rounded to the element type of the graph
 * input (fp16 in the seed layout; see {@link SyntheticBundleSpec#activationType}), the math runs in double (the
 * graphs use fp32), and results are rounded to the type of the graph output, so every returned array holds values
 * exactly representable in that type. With FLOAT activations nothing is rounded and graph and reference differ by
 * fp32 summation error only (≈1e-6 relative to the summands).
 *
 * <h2>Layouts</h2>
 * tokens [T][128] (T = N image tokens, then M reference tokens), position ids [T][4], context [L][D], latents NCHW
 * [128][H/16][W/16], images [3][H][W] (planar RGB in [−1,1]), all row-major; packing and position ids between them
 * are the pipeline oracle's ({@link ReferenceMath#pack}, {@link ReferenceMath#imageIds}, …).
 *
 * <h2>Agreement with ONNX Runtime (CPU EP)</h2>
 * The graphs compute in fp32 and the reference in double, so before the final fp16 rounding they differ by
 * fp32 rounding only (≈1e-6 relative to the summands); after rounding, a single-graph output differs by at most
 * one fp16 ulp of the value, plus about 2^-17 absolute where terms of O(1) cancel to nearly 0. Chained
 * computations add one possible rounding flip per fp16 boundary, carried through the later steps. The testkit's
 * own tests use, and a caller comparing a pipeline with this reference can use:
 * <ul>
 *   <li>single graph: |graph − reference| ≤ 1 ulp16(value) + 2^-17 (measured: ≤ 1 ulp);</li>
 *   <li>fused 4-step graph, or four per-step runs with an fp32 latent: ≤ 2 ulp16 + 2^-9 (measured ≤ 7.4e-4);</li>
 *   <li>split VAE decoder chain (pre, chunked attention, four stages) vs {@link #decodeLatent}: ≤ 2 ulp16 + 2^-9
 *       (measured ≤ 1 ulp).</li>
 * </ul>
 * Longer chains (text encoder → 4 steps → VAE) compound these; budget one flip per boundary times the downstream
 * gain rather than widening blindly.
 */
public final class SyntheticReference {
    private static final int C = SyntheticDims.LATENT_CHANNELS;

    private final SyntheticBundleSpec spec;
    private final TextEncoderWeights text;
    private final TransformerWeights transformer;
    private final VaeWeights vae;
    private final double[] tokenWeights;

    /**
     * @param spec the bundle spec whose weights to regenerate
     */
    public SyntheticReference(SyntheticBundleSpec spec) {
        this.spec = Objects.requireNonNull(spec, "spec");
        this.text = TextEncoderWeights.generate(spec);
        this.transformer = TransformerWeights.generate(spec);
        this.vae = VaeWeights.generate(spec);
        this.tokenWeights = ReferenceOps.toDouble(transformer.tokenProjection().dequantized());
    }

    /** @return the spec this reference evaluates */
    public SyntheticBundleSpec spec() {
        return spec;
    }

    // ---------------------------------------------------------------- text encoder

    /**
     * The {@code text_encoder} graph. For position l with id t and mask m (as float), F features
     * ({@link SyntheticBundleSpec#textFeatures()}: 32, or the block size of a larger-block weight)
     * <pre>
     *   a = (t mod 97)/97, b = (t mod 89)/89, c = ((t div 97) mod 61)/61, p = 0.05·l      (fp32, floor mod)
     *   h_j = m · sin(a·P0_j + b·P1_j + c·P2_j + p·P3_j + P4_j)                       j &lt; F
     *   ctx[l][n] = fp16( Σ_j h_j · W[j][n] + m · maskTerm_n + bias_n )                 n &lt; D
     * </pre>
     * with W the MatMulNBits weight (K = F, N = D, asymmetric; 4 bits block 16 in the q4 layout, block 128 in
     * hlhc's), dequantized here from the regenerated codes, never read from the graph.
     *
     * @param inputIds L token ids
     * @param attentionMask L mask values (1 real token, 0 pad)
     * @return [L][D] the values of the graph's {@code ctx} (rounded to its type)
     */
    public float[] textContext(long[] inputIds, long[] attentionMask) {
        if (inputIds.length != attentionMask.length) {
            throw new IllegalArgumentException(
                    "input_ids has " + inputIds.length + " values but attention_mask has " + attentionMask.length);
        }
        int f = spec.textFeatures();
        int d = spec.contextDim();
        float[] p = text.featureProjection();
        QuantizedMatrix w = text.projection();
        TensorElementType textType = spec.activationType(BundleGraph.TEXT_ENCODER);
        float[] out = new float[inputIds.length * d];
        double[] h = new double[f];
        for (int l = 0; l < inputIds.length; l++) {
            long id = inputIds[l];
            float a = Math.floorMod(id, 97L) / 97f;
            float b = Math.floorMod(id, 89L) / 89f;
            float c = Math.floorMod(id / 97L, 61L) / 61f;
            float pos = l * TextEncoderWeights.POSITION_STEP;
            float m = attentionMask[l];
            for (int j = 0; j < f; j++) {
                // Same fp32 operation order as the graph, so the sine sees the same argument.
                float arg = a * p[j] + b * p[f + j];
                arg = arg + c * p[2 * f + j];
                arg = arg + pos * p[3 * f + j];
                arg = arg + p[4 * f + j];
                h[j] = (float) Math.sin(arg) * m;
            }
            for (int n = 0; n < d; n++) {
                double s = 0;
                for (int j = 0; j < f; j++) {
                    s += h[j] * w.weight(j, n);
                }
                s += (double) m * text.maskTerm()[n] + text.bias()[n];
                out[l * d + n] = Rounding.round(textType, (float) s);
            }
        }
        return out;
    }

    /**
     * The context a pipeline feeds the transformer: {@link #textContext}, then, as the config asks, the rows of
     * padding tokens zeroed ({@code zero_padded_context}) and every value clamped to ±{@code context_clip}, the
     * clamped value rounded to the text encoder's output type (the post-processing happens in that type).
     *
     * @param inputIds L token ids
     * @param attentionMask L mask values (1 real token, 0 pad)
     * @return [L][D]
     */
    public float[] conditionedContext(long[] inputIds, long[] attentionMask) {
        float[] ctx = textContext(inputIds, attentionMask);
        int d = spec.contextDim();
        if (spec.has(BundleVariant.ZERO_PADDED_CONTEXT)) {
            for (int l = 0; l < attentionMask.length; l++) {
                if (attentionMask[l] == 0) {
                    java.util.Arrays.fill(ctx, l * d, (l + 1) * d, 0f);
                }
            }
        }
        float clip = spec.contextClip();
        if (clip > 0) {
            TensorElementType textType = spec.activationType(BundleGraph.TEXT_ENCODER);
            for (int i = 0; i < ctx.length; i++) {
                ctx[i] = Rounding.round(textType, Math.max(-clip, Math.min(clip, ctx[i])));
            }
        }
        return ctx;
    }

    // ---------------------------------------------------------------- transformer

    /**
     * The per-step {@code transformer} graph with {@code ctx_ids} = (0,0,0,l). With x̂ = fp16(tokens),
     * σ̂ = fp16(σ), ĉ = fp16(context), ids = position ids (fp32, not rounded):
     * <pre>
     *   pred[t][j] = fp16( 0.5 · Σ_k x̂[t][k]·W[k][j]                       (4-bit MatMulNBits, 128 → 128)
     *                    + 0.25 · sin(Σ_d ids[t][d]·Pid[d][j] + φ_j)
     *                    + Σ_k m_k·Pm[k][j],   m_k = mean_t x̂[t][k]        (over all T tokens, references too)
     *                    + Σ_i c̄_i·Pc[i][j],   c̄_i = mean_l ĉ[l][i]·(1 + 0.5·sin(Σ_d ctxId[l][d]·Pq[d][i] + ψ_i))
     *                    + σ̂ · s_j )
     * </pre>
     * The optional padding MatMulNBits adds exactly 0 (all its codes equal their zero points).
     *
     * @param tokens [T][128] (noise tokens then reference tokens)
     * @param positionIds [T][4]
     * @param sigma σ fed as {@code timesteps}
     * @param context [L][D]
     * @return [T][128] the values of {@code pred}, rounded to its type for every token (callers keep the first N)
     */
    public float[] velocity(float[] tokens, float[] positionIds, float sigma, float[] context) {
        int t = tokenCount(tokens, positionIds);
        TensorElementType type = spec.activationType(BundleGraph.TRANSFORMER);
        double[] fixed = stepIndependent(positionIds, t, Rounding.rounded(type, context));
        return Rounding.toType(
                type, velocityUnrounded(Rounding.rounded(type, tokens), t, Rounding.round(type, sigma), fixed));
    }

    /**
     * The {@code transformer_fused_4step} graph: four Euler steps of {@link #velocity} inside one graph.
     * <pre>
     *   x⁰ = fp16(tokens) (kept in fp32 between steps)
     *   v_i = velocity(fp16(x^i), σ̂_i)          (fp16-rounded, as a per-step graph would output it)
     *   x^{i+1} = x^i + dt_i · v_i               (fp32)
     *   latent = fp16(x⁴)
     * </pre>
     * ENGINE: σ̂_i = fp16(sigmas[i]) and dt_i = sigmas[i+1] − sigmas[i] in fp32 (what a caller feeds as
     * {@code dt_i}). LISTED: σ̂_i = fp16(sigmas[i]) and dt_i = σ̂_{i+1} − σ̂_i with σ̂_4 = 0, so sigmas[4] must be 0.
     * The graph updates every token it is given (it knows nothing of reference tokens).
     *
     * @param tokens [T][128]
     * @param positionIds [T][4]
     * @param sigmas the 5 values σ_0..σ_4
     * @param context [L][D]
     * @return [T][128] the values of {@code latent}, rounded to its type
     * @throws IllegalStateException if the spec has no fused graph
     */
    public float[] fusedLatent(float[] tokens, float[] positionIds, float[] sigmas, float[] context) {
        if (spec.fused() == FusedConvention.NONE) {
            throw new IllegalStateException("the bundle spec has no fused graph (fused = NONE)");
        }
        if (sigmas.length != 5) {
            throw new IllegalArgumentException("fused graph needs 5 sigmas, got " + sigmas.length);
        }
        if (spec.fused() == FusedConvention.LISTED && sigmas[4] != 0f) {
            throw new IllegalArgumentException("the LISTED convention ends at sigma 0, got " + sigmas[4]);
        }
        int t = tokenCount(tokens, positionIds);
        TensorElementType type = spec.activationType(BundleGraph.TRANSFORMER_FUSED_4STEP);
        double[] fixed = stepIndependent(positionIds, t, Rounding.rounded(type, context));
        float[] x = Rounding.rounded(type, tokens);
        for (int i = 0; i < 4; i++) {
            float sigma = Rounding.round(type, sigmas[i]);
            float dt = spec.fused() == FusedConvention.ENGINE
                    ? sigmas[i + 1] - sigmas[i]
                    : Rounding.round(type, sigmas[i + 1]) - sigma;
            float[] stepInput = i == 0 ? x : Rounding.rounded(type, x);
            float[] v = Rounding.toType(type, velocityUnrounded(stepInput, t, sigma, fixed));
            for (int k = 0; k < x.length; k++) {
                x[k] = x[k] + dt * v[k];
            }
        }
        return Rounding.rounded(type, x);
    }

    private static int tokenCount(float[] tokens, float[] positionIds) {
        if (tokens.length % C != 0 || positionIds.length != tokens.length / C * 4) {
            throw new IllegalArgumentException("tokens (" + tokens.length + " values) and position ids ("
                    + positionIds.length + " values) do not describe the same T tokens of 128 channels");
        }
        return tokens.length / C;
    }

    /** [T][128]: the id term per token plus the context term (broadcast over tokens); ctx already rounded. */
    private double[] stepIndependent(float[] ids, int t, float[] ctx) {
        int d = spec.contextDim();
        if (ctx.length % d != 0 || ctx.length == 0) {
            throw new IllegalArgumentException("context has " + ctx.length + " values, not a multiple of D = " + d);
        }
        int l = ctx.length / d;
        float[] pq = transformer.ctxIdProjection();
        double[] meanCtx = new double[d];
        for (int pos = 0; pos < l; pos++) {
            for (int i = 0; i < d; i++) {
                // ctx_ids = (0, 0, 0, pos): only the last row of the projection contributes.
                double arg = (double) pos * pq[3 * d + i] + transformer.ctxIdPhase()[i];
                meanCtx[i] += ctx[pos * d + i] * (1 + TransformerWeights.CTX_MODULATION * Math.sin(arg));
            }
        }
        double[] ctxTerm = new double[C];
        for (int j = 0; j < C; j++) {
            double s = 0;
            for (int i = 0; i < d; i++) {
                s += meanCtx[i] / l * transformer.ctxProjection()[i * C + j];
            }
            ctxTerm[j] = s;
        }
        float[] pid = transformer.idProjection();
        double[] fixed = new double[t * C];
        for (int tok = 0; tok < t; tok++) {
            for (int j = 0; j < C; j++) {
                double arg = transformer.idPhase()[j];
                for (int k = 0; k < 4; k++) {
                    arg += (double) ids[tok * 4 + k] * pid[k * C + j];
                }
                fixed[tok * C + j] = TransformerWeights.ID_COEF * Math.sin(arg) + ctxTerm[j];
            }
        }
        return fixed;
    }

    private double[] velocityUnrounded(float[] x, int t, float sigma, double[] fixed) {
        double[] mean = new double[C];
        for (int tok = 0; tok < t; tok++) {
            for (int k = 0; k < C; k++) {
                mean[k] += x[tok * C + k];
            }
        }
        double[] meanTerm = new double[C];
        float[] pm = transformer.meanProjection();
        for (int j = 0; j < C; j++) {
            double s = 0;
            for (int k = 0; k < C; k++) {
                s += mean[k] / t * pm[k * C + j];
            }
            meanTerm[j] = s + (double) sigma * transformer.sigmaVector()[j];
        }
        double[] out = new double[t * C];
        for (int tok = 0; tok < t; tok++) {
            for (int j = 0; j < C; j++) {
                double s = 0;
                for (int k = 0; k < C; k++) {
                    s += x[tok * C + k] * tokenWeights[k * C + j];
                }
                out[tok * C + j] = TransformerWeights.TOKEN_COEF * s + fixed[tok * C + j] + meanTerm[j];
            }
        }
        return out;
    }

    // ---------------------------------------------------------------- VAE

    /**
     * The {@code vae_encoder} graph: î = fp16(image);
     * <pre>
     *   pool[c][y][x] = mean of î[c] over the 8×8 block (y, x)                      [3][H/8][W/8]
     *   f[c'][y][x] = Σ_c E[c'][c]·pool[c][y][x] + e_c'                              [32][H/8][W/8]
     *   z[4c' + 2dr + dc][gy][gx] = f[c'][2gy + dr][2gx + dc]                        patchify, [128][H/16][W/16]
     *   out = fp16((z − mean_c) / std_c)
     * </pre>
     *
     * @param chw [3][H][W]
     * @param width W (a multiple of 16)
     * @param height H (a multiple of 16)
     * @return [128][H/16][W/16] the values of {@code z}, rounded to its type
     */
    public float[] encodeImage(float[] chw, int width, int height) {
        checkSize(width, height);
        if (chw.length != 3 * width * height) {
            throw new IllegalArgumentException(
                    "image has " + chw.length + " values, expected 3x" + height + "x" + width);
        }
        TensorElementType type = spec.activationType(BundleGraph.VAE_ENCODER);
        float[] img = Rounding.rounded(type, chw);
        int h8 = height / 8;
        int w8 = width / 8;
        double[] pooled = new double[3 * h8 * w8];
        for (int c = 0; c < 3; c++) {
            for (int y = 0; y < h8; y++) {
                for (int x = 0; x < w8; x++) {
                    double s = 0;
                    for (int dy = 0; dy < 8; dy++) {
                        for (int dx = 0; dx < 8; dx++) {
                            s += img[(c * height + y * 8 + dy) * width + x * 8 + dx];
                        }
                    }
                    pooled[(c * h8 + y) * w8 + x] = s / 64;
                }
            }
        }
        int p = SyntheticDims.PATCH_CHANNELS;
        double[] f = ReferenceOps.conv(pooled, h8, w8, vae.encoder());
        int gh = height / 16;
        int gw = width / 16;
        double[] z = new double[C * gh * gw];
        for (int c = 0; c < p; c++) {
            for (int off = 0; off < 4; off++) {
                int ch = 4 * c + off;
                for (int gy = 0; gy < gh; gy++) {
                    for (int gx = 0; gx < gw; gx++) {
                        double v = f[(c * h8 + 2 * gy + off / 2) * w8 + 2 * gx + off % 2];
                        z[(ch * gh + gy) * gw + gx] = (v - vae.bnMean()[ch]) / vae.bnStd()[ch];
                    }
                }
            }
        }
        return Rounding.toType(type, z);
    }

    /**
     * The whole split decoder chain with attention over all S rows at once (chunking the attention does not
     * change the math: query rows are independent).
     *
     * @param latent [128][gridHeight][gridWidth] (NCHW, as fed to {@code z})
     * @param gridWidth W/16
     * @param gridHeight H/16
     * @return [3][16·gridHeight][16·gridWidth] the values of {@code image}, rounded to its type
     */
    public float[] decodeLatent(float[] latent, int gridWidth, int gridHeight) {
        // A bundle with a unified decoder decodes with it; its internal hand-overs round to its own type.
        boolean unified = spec.contains(BundleGraph.VAE_DECODER);
        TensorElementType all = spec.activationType(BundleGraph.VAE_DECODER);
        VaeDecoderPreOutputs pre =
                decoderPre(latent, gridHeight, gridWidth, unified ? all : stageType(BundleGraph.VAE_DECODER_PRE));
        float[] attn = attentionRows(
                pre.query(),
                pre.keyTransposed(),
                pre.value(),
                unified ? all : stageType(BundleGraph.VAE_DECODER_ATTN_CHUNK));
        Grid grid = new Grid(gridHeight, gridWidth);
        float[] x = postStage0(pre.residual(), attn, grid, unified ? all : stageType(BundleGraph.postStage(0)));
        x = postStage1(x, grid, unified ? all : stageType(BundleGraph.postStage(1)));
        x = postStage2(x, grid, unified ? all : stageType(BundleGraph.postStage(2)));
        return postStage3(x, grid, unified ? all : stageType(BundleGraph.postStage(3)));
    }

    /** A latent grid: H/16 × W/16. */
    private record Grid(int height, int width) {}

    /**
     * @param stage a graph of the split chain
     * @return the element type at its boundaries: its own, or that of the merged graph that contains it
     */
    private TensorElementType stageType(BundleGraph stage) {
        if (spec.contains(stage)) {
            return spec.activationType(stage);
        }
        boolean post = stage.key().startsWith("vae_decoder_post_stage_");
        if (post && spec.contains(BundleGraph.VAE_DECODER_POST)) {
            return spec.activationType(BundleGraph.VAE_DECODER_POST);
        }
        return spec.activationType(spec.contains(BundleGraph.VAE_DECODER) ? BundleGraph.VAE_DECODER : stage);
    }

    /**
     * The {@code vae_decoder_pre} graph: ẑ = fp16(latent);
     * <pre>
     *   u[c] = ẑ[c]·std_c + mean_c                                          BN de-normalisation
     *   p[c'][2y + dr][2x + dc] = u[4c' + 2dr + dc][y][x]                   unpatchify (DepthToSpace CRD), 32 ch
     *   residual = fp16(R·p + r)                                           1×1 conv 32 → Cr, [Cr][H/8][W/8]
     *   tok[s][o] = residual[o][s]                                          s = row·(W/8) + col
     *   query = fp16((tok·Wq)·hd^-1/4), key = fp16((tok·Wk)·hd^-1/4) (output transposed), value = fp16(tok·Wv)
     * </pre>
     *
     * @param latent [128][gridHeight][gridWidth]
     * @param gridWidth W/16
     * @param gridHeight H/16
     * @return the four outputs
     */
    public VaeDecoderPreOutputs decoderPre(float[] latent, int gridWidth, int gridHeight) {
        return decoderPre(latent, gridHeight, gridWidth, stageType(BundleGraph.VAE_DECODER_PRE));
    }

    private VaeDecoderPreOutputs decoderPre(float[] latent, int gridHeight, int gridWidth, TensorElementType type) {
        int cells = gridHeight * gridWidth;
        if (latent.length != C * cells) {
            throw new IllegalArgumentException(
                    "latent has " + latent.length + " values, expected 128x" + gridHeight + "x" + gridWidth);
        }
        float[] z = Rounding.rounded(type, latent);
        int h8 = 2 * gridHeight;
        int w8 = 2 * gridWidth;
        int s = h8 * w8;
        int p = SyntheticDims.PATCH_CHANNELS;
        double[] patches = new double[p * s];
        for (int ch = 0; ch < C; ch++) {
            int c = ch / 4;
            int dr = (ch % 4) / 2;
            int dc = ch % 2;
            for (int y = 0; y < gridHeight; y++) {
                for (int x = 0; x < gridWidth; x++) {
                    // fp32 Mul then Add, as the graph does.
                    float u = z[(ch * gridHeight + y) * gridWidth + x] * vae.bnStd()[ch] + vae.bnMean()[ch];
                    patches[(c * h8 + 2 * y + dr) * w8 + 2 * x + dc] = u;
                }
            }
        }
        int cr = SyntheticDims.RESIDUAL_CHANNELS;
        float[] residual = Rounding.toType(type, ReferenceOps.conv(patches, h8, w8, vae.patchConv()));
        int hd = spec.vaeHeadDim();
        float scale = (float) Math.pow(hd, -0.25);
        float[] q = new float[s * hd];
        float[] kt = new float[hd * s];
        float[] v = new float[s * hd];
        for (int pos = 0; pos < s; pos++) {
            for (int j = 0; j < hd; j++) {
                double sq = 0;
                double sk = 0;
                double sv = 0;
                for (int o = 0; o < cr; o++) {
                    double tok = residual[o * s + pos];
                    sq += tok * vae.query()[o * hd + j];
                    sk += tok * vae.key()[o * hd + j];
                    sv += tok * vae.value()[o * hd + j];
                }
                q[pos * hd + j] = Rounding.round(type, (float) sq * scale);
                kt[j * s + pos] = Rounding.round(type, (float) sk * scale);
                v[pos * hd + j] = Rounding.round(type, (float) sv);
            }
        }
        return new VaeDecoderPreOutputs(residual, q, kt, v);
    }

    /**
     * The {@code vae_decoder_attn_chunk} graph for any number of query rows (a chunk, or all S rows at once):
     * attn[r][j] = fp16(Σ_s softmax_s(Σ_i q̂[r][i]·k̂ᵀ[i][s]) · v̂[s][j]), inputs rounded to fp16, no extra scale.
     *
     * @param queryRows [rows][hd]
     * @param keyTransposed [hd][S]
     * @param value [S][hd]
     * @return [rows][hd]
     */
    public float[] attentionRows(float[] queryRows, float[] keyTransposed, float[] value) {
        return attentionRows(queryRows, keyTransposed, value, stageType(BundleGraph.VAE_DECODER_ATTN_CHUNK));
    }

    private float[] attentionRows(float[] queryRows, float[] keyTransposed, float[] value, TensorElementType type) {
        int hd = spec.vaeHeadDim();
        int rows = queryRows.length / hd;
        int kvLength = value.length / hd;
        if (queryRows.length % hd != 0 || value.length % hd != 0 || keyTransposed.length != value.length) {
            throw new IllegalArgumentException("attention sizes do not fit head dim " + hd + ": q " + queryRows.length
                    + ", kT " + keyTransposed.length + ", v " + value.length + " values");
        }
        float[] q = Rounding.rounded(type, queryRows);
        float[] kt = Rounding.rounded(type, keyTransposed);
        float[] v = Rounding.rounded(type, value);
        double[] out = new double[rows * hd];
        double[] scores = new double[kvLength];
        for (int r = 0; r < rows; r++) {
            double max = Double.NEGATIVE_INFINITY;
            for (int s = 0; s < kvLength; s++) {
                double dot = 0;
                for (int i = 0; i < hd; i++) {
                    dot += (double) q[r * hd + i] * kt[i * kvLength + s];
                }
                scores[s] = dot;
                max = Math.max(max, dot);
            }
            double sum = 0;
            for (int s = 0; s < kvLength; s++) {
                scores[s] = Math.exp(scores[s] - max);
                sum += scores[s];
            }
            for (int s = 0; s < kvLength; s++) {
                double weight = scores[s] / sum;
                for (int j = 0; j < hd; j++) {
                    out[r * hd + j] += weight * v[s * hd + j];
                }
            }
        }
        return Rounding.toType(type, out);
    }

    /**
     * Post stage 0: a[j][y][x] = attn[y·(W/8) + x][j] (tokens back to NCHW); o = A·a + α + residual (1×1 conv
     * hd → Cr); out = fp16(nearest×4(C0·silu(o) + c0)) → [C₀][H/2][W/2].
     *
     * @param residual [Cr][H/8][W/8]
     * @param attention [S][hd]
     * @param gridWidth W/16
     * @param gridHeight H/16
     * @return [C₀][H/2][W/2]
     */
    public float[] postStage0(float[] residual, float[] attention, int gridWidth, int gridHeight) {
        return postStage0(residual, attention, new Grid(gridHeight, gridWidth), stageType(BundleGraph.postStage(0)));
    }

    private float[] postStage0(float[] residual, float[] attention, Grid grid, TensorElementType type) {
        int gridHeight = grid.height();
        int gridWidth = grid.width();
        int hd = spec.vaeHeadDim();
        int h8 = 2 * gridHeight;
        int w8 = 2 * gridWidth;
        int s = h8 * w8;
        int cr = SyntheticDims.RESIDUAL_CHANNELS;
        if (residual.length != cr * s || attention.length != s * hd) {
            throw new IllegalArgumentException("post stage 0 inputs do not match grid " + gridWidth + "x" + gridHeight);
        }
        float[] attn = Rounding.rounded(type, attention);
        float[] res = Rounding.rounded(type, residual);
        double[] a = new double[hd * s];
        for (int pos = 0; pos < s; pos++) {
            for (int j = 0; j < hd; j++) {
                a[j * s + pos] = attn[pos * hd + j];
            }
        }
        double[] o = ReferenceOps.conv(a, h8, w8, vae.attnProj());
        for (int i = 0; i < o.length; i++) {
            o[i] += res[i];
        }
        double[] c = ReferenceOps.conv(ReferenceOps.silu(o), h8, w8, vae.stage0());
        return Rounding.toType(type, ReferenceOps.upsample(c, h8, w8, 4));
    }

    /**
     * Post stage 1: out = fp16(conv3×3(nearest×2(x)) + b), zero padding → [C₁][H][W].
     *
     * @param stage0 [C₀][H/2][W/2]
     * @param gridWidth W/16
     * @param gridHeight H/16
     * @return [C₁][H][W]
     */
    public float[] postStage1(float[] stage0, int gridWidth, int gridHeight) {
        return postStage1(stage0, new Grid(gridHeight, gridWidth), stageType(BundleGraph.postStage(1)));
    }

    private float[] postStage1(float[] stage0, Grid grid, TensorElementType type) {
        int gridHeight = grid.height();
        int gridWidth = grid.width();
        int c0 = SyntheticDims.STAGE0_CHANNELS;
        int h2 = 8 * gridHeight;
        int w2 = 8 * gridWidth;
        checkLength(stage0, c0 * h2 * w2, "post stage 1 input");
        double[] up = ReferenceOps.upsample(ReferenceOps.toDouble(Rounding.rounded(type, stage0)), h2, w2, 2);
        return Rounding.toType(type, ReferenceOps.conv(up, 2 * h2, 2 * w2, vae.stage1()));
    }

    /**
     * Post stage 2: out = fp16(x + conv1×1(silu(x))) → [C₂][H][W].
     *
     * @param stage1 [C₁][H][W]
     * @param gridWidth W/16
     * @param gridHeight H/16
     * @return [C₂][H][W]
     */
    public float[] postStage2(float[] stage1, int gridWidth, int gridHeight) {
        return postStage2(stage1, new Grid(gridHeight, gridWidth), stageType(BundleGraph.postStage(2)));
    }

    private float[] postStage2(float[] stage1, Grid grid, TensorElementType type) {
        int gridHeight = grid.height();
        int gridWidth = grid.width();
        int c1 = SyntheticDims.STAGE1_CHANNELS;
        checkLength(stage1, c1 * 256 * gridHeight * gridWidth, "post stage 2 input");
        double[] x = ReferenceOps.toDouble(Rounding.rounded(type, stage1));
        double[] c = ReferenceOps.conv(ReferenceOps.silu(x), 16 * gridHeight, 16 * gridWidth, vae.stage2());
        for (int i = 0; i < c.length; i++) {
            c[i] += x[i];
        }
        return Rounding.toType(type, c);
    }

    /**
     * Post stage 3: image = fp16(tanh(conv1×1(x))) → [3][H][W] in [−1, 1].
     *
     * @param stage2 [C₂][H][W]
     * @param gridWidth W/16
     * @param gridHeight H/16
     * @return [3][H][W]
     */
    public float[] postStage3(float[] stage2, int gridWidth, int gridHeight) {
        return postStage3(stage2, new Grid(gridHeight, gridWidth), stageType(BundleGraph.postStage(3)));
    }

    private float[] postStage3(float[] stage2, Grid grid, TensorElementType type) {
        int gridHeight = grid.height();
        int gridWidth = grid.width();
        int c2 = SyntheticDims.STAGE2_CHANNELS;
        checkLength(stage2, c2 * 256 * gridHeight * gridWidth, "post stage 3 input");
        double[] c = ReferenceOps.conv(
                ReferenceOps.toDouble(Rounding.rounded(type, stage2)), 16 * gridHeight, 16 * gridWidth, vae.stage3());
        for (int i = 0; i < c.length; i++) {
            c[i] = Math.tanh(c[i]);
        }
        return Rounding.toType(type, c);
    }

    private static void checkSize(int width, int height) {
        if (width < 16 || height < 16 || width % 16 != 0 || height % 16 != 0) {
            throw new IllegalArgumentException("image size must be multiples of 16, was " + width + "x" + height);
        }
    }

    private static void checkLength(float[] a, int expected, String what) {
        if (a.length != expected) {
            throw new IllegalArgumentException(what + " has " + a.length + " values, expected " + expected);
        }
    }
}
