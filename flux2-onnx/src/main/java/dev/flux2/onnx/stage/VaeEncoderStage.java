package dev.flux2.onnx.stage;

import ai.onnxruntime.OnnxTensorLike;
import ai.onnxruntime.OrtSession;
import dev.flux2.onnx.bundle.GraphKeys;
import dev.flux2.onnx.bundle.VaeEncoderIo;
import dev.flux2.onnx.session.RunCall;
import dev.flux2.onnx.session.SessionLease;
import dev.flux2.onnx.tensor.TensorBuffer;
import dev.flux2.spi.LatentGrid;
import dev.flux2.spi.PixelTensor;
import dev.flux2.spi.StageContext;
import java.util.Map;
import java.util.Set;

/**
 * Encodes pixels with the VAE encoder: image [1, 3, H, W] in [−1, 1] → z [1, 128, H/16, W/16], already the distribution
 * mode, patchified and BatchNorm-normalised by the graph itself (docs/bundle-format.md §11). Thread-safe (no mutable
 * state).
 */
public final class VaeEncoderStage {

    private final StageResources resources;
    private final VaeEncoderIo io;

    /**
     * @param resources the backend's resources
     * @param io the checked VAE encoder graph
     */
    public VaeEncoderStage(StageResources resources, VaeEncoderIo io) {
        this.resources = resources;
        this.io = io;
    }

    /**
     * @param image pixels in [−1, 1], sides multiples of 16
     * @param context the generation's context
     * @return the latent [128, H/16, W/16]
     */
    public LatentGrid encode(PixelTensor image, StageContext context) {
        if (image.width() % 16 != 0 || image.height() % 16 != 0) {
            throw new IllegalArgumentException("the VAE encoder takes sides that are multiples of 16, got "
                    + image.width() + "x" + image.height());
        }
        int h = image.height() / 16;
        int w = image.width() / 16;
        try (TensorBuffer pixels = resources.allocate(io.image().elementType(), 1, 3, image.height(), image.width());
                TensorBuffer z = resources.allocate(io.z().elementType(), 1, LatentGrid.CHANNELS, h, w)) {
            pixels.writeFloats(image.data(), 0, image.data().length, 0);
            Map<String, OnnxTensorLike> inputs = Map.of(io.image().name(), pixels.tensor());
            try (SessionLease lease = resources
                            .sessions()
                            .acquire(resources.specs().forInputs(GraphKeys.VAE_ENCODER, Shapes.of(inputs)));
                    OrtSession.Result ignored = lease.session()
                            .run(
                                    new RunCall(
                                            inputs,
                                            Set.of(),
                                            Map.of(io.z().name(), z.tensor()),
                                            "vae encoder " + image.width() + "x" + image.height()),
                                    context)) {
                float[] values = new float[LatentGrid.CHANNELS * h * w];
                z.readFloats(0, values, 0, values.length);
                return new LatentGrid(values, LatentGrid.CHANNELS, w, h);
            }
        }
    }
}
