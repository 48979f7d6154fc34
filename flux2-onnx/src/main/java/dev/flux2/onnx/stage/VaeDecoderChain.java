package dev.flux2.onnx.stage;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OnnxTensorLike;
import ai.onnxruntime.OrtSession;
import dev.flux2.image.PixelTensor;
import dev.flux2.math.LatentGrid;
import dev.flux2.onnx.config.GraphKeys;
import dev.flux2.onnx.graph.VaeDecoderIo;
import dev.flux2.onnx.session.RunCall;
import dev.flux2.onnx.session.SessionLease;
import dev.flux2.onnx.tensor.OutputReader;
import dev.flux2.onnx.tensor.TensorBuffer;
import dev.flux2.spi.StageContext;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Decodes a latent with the split VAE decoder (onnx-bundle §8): the pre-attention stage on z [1, 128, H/16, W/16]
 * (it de-normalises and unpatchifies itself), single-head attention ({@link VaeAttention}), then the post stages in
 * {@code vae_decoder_post_stage_keys} order, each fed the previous output under the name the config gives, ending
 * in the image [1, 3, H, W] in [−1, 1].
 *
 * <p>Stage outputs stay in native memory and are fed straight to the next stage. Each stage's outputs and session
 * are released as soon as the next stage has consumed them, so under SEQUENTIAL at most two decoder stages are
 * open at a time. Thread-safe (no mutable state).
 */
public final class VaeDecoderChain {
    private static final int CHANNELS = 128;

    private final StageResources resources;
    private final VaeAttention attention;

    /**
     * @param resources the backend's resources
     * @param settings attention mode and chunk size
     */
    public VaeDecoderChain(StageResources resources, AttentionSettings settings) {
        this.resources = resources;
        this.attention = new VaeAttention(resources, settings);
    }

    /**
     * @param latent the normalised, patchified latent [128, H/16, W/16]
     * @param context the generation's context
     * @return the pixels, nominally in [−1, 1]
     */
    public PixelTensor decode(LatentGrid latent, StageContext context) {
        if (latent.channels() != CHANNELS) {
            throw new IllegalArgumentException("the VAE decoder takes a " + CHANNELS + "-channel latent, got "
                    + latent.channels());
        }
        VaeDecoderIo io = resources.io().vaeDecoder();
        int height = latent.height() * 16;
        int width = latent.width() * 16;
        try (ResourceScope scope = new ResourceScope()) {
            TensorBuffer z = scope.add(TensorBuffer.allocate(resources.env(), io.z().elementType(), 1, CHANNELS,
                    latent.height(), latent.width()));
            z.writeFloats(latent.data(), 0, latent.data().length, 0);
            Map<String, OnnxTensorLike> preInputs = Map.of(io.z().name(), z.tensor());
            SessionLease preLease = scope.add(resources.sessions().acquire(resources.specs().forInputs(
                    GraphKeys.VAE_DECODER_PRE, Shapes.of(preInputs))));
            OrtSession.Result pre = scope.add(preLease.session().run(new RunCall(preInputs,
                    Set.of(io.residual(), io.q().name(), io.kt(), io.v()), Map.of(), "vae decoder pre-attention"),
                    context));
            scope.closeNow(z);
            OnnxTensor residual = OutputReader.tensor(pre, io.residual(), "vae decoder pre-attention");
            OnnxTensor q = OutputReader.tensor(pre, io.q().name(), "vae decoder pre-attention");
            long[] qShape = q.getInfo().getShape();
            TensorBuffer attn = scope.add(TensorBuffer.allocate(resources.env(),
                    io.attention().output().elementType(), 1, 1, qShape[2], qShape[3]));
            attention.run(q, OutputReader.tensor(pre, io.kt(), "vae decoder pre-attention"),
                    OutputReader.tensor(pre, io.v(), "vae decoder pre-attention"), attn, context);

            OnnxTensor current = null;
            OrtSession.Result previous = null;
            SessionLease previousLease = null;
            List<VaeDecoderIo.PostStage> stages = io.post();
            for (int i = 0; i < stages.size(); i++) {
                VaeDecoderIo.PostStage stage = stages.get(i);
                String where = "vae decoder " + stage.key();
                Map<String, OnnxTensorLike> inputs = new LinkedHashMap<>();
                stage.residualInput().ifPresent(name -> inputs.put(name, residual));
                inputs.put(stage.input(), i == 0 ? attn.tensor() : current);
                SessionLease lease = scope.add(resources.sessions().acquire(resources.specs().forInputs(
                        stage.key(), Shapes.of(inputs))));
                OrtSession.Result result = scope.add(lease.session().run(new RunCall(inputs,
                        Set.of(stage.output()), Map.of(), where), context));
                if (i == 0) {
                    scope.closeNow(attn);
                    scope.closeNow(pre);
                    scope.closeNow(preLease);
                } else {
                    scope.closeNow(previous);
                    scope.closeNow(previousLease);
                }
                current = OutputReader.tensor(result, stage.output(), where);
                previous = result;
                previousLease = lease;
            }
            float[] pixels = OutputReader.floats(current, new long[] {1, 3, height, width}, "vae decoder "
                    + stages.get(stages.size() - 1).key());
            return new PixelTensor(pixels, width, height);
        }
    }
}
