package dev.flux2.onnx.stage;

import ai.onnxruntime.OnnxTensor;
import dev.flux2.onnx.bundle.TensorSignature;
import dev.flux2.onnx.tensor.TensorBuffer;
import dev.flux2.spi.TextEmbedding;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Gives a transformer the text context in the element type its {@code ctx} input takes. Normally the embedding's
 * own tensor is fed as is; when the text encoder's output type differs (an fp32 encoder with an fp16 transformer,
 * or the reverse), one converted copy is made per embedding (the prompt's and, under classifier-free guidance, the
 * negative prompt's) and reused for every step until {@link #close()}. Not thread-safe: one generation owns it.
 */
final class ContextFeed implements AutoCloseable {
    private final StageResources resources;
    private final TensorSignature input;
    /** One conversion per embedding: under classifier-free guidance the prompt and the negative alternate. */
    private final Map<OnnxTextEmbedding, TensorBuffer> conversions = new IdentityHashMap<>();

    ContextFeed(StageResources resources, TensorSignature input) {
        this.resources = resources;
        this.input = input;
    }

    /**
     * @param text an embedding made by this backend
     * @return the tensor to feed as ctx
     */
    OnnxTensor tensorFor(TextEmbedding text) {
        if (!(text instanceof OnnxTextEmbedding embedding)) {
            throw new IllegalArgumentException("the text embedding was not made by the ONNX backend: "
                    + (text == null ? "null" : text.getClass().getName()));
        }
        TensorBuffer ctx = embedding.context();
        if (ctx.type() == input.elementType()) {
            return ctx.tensor();
        }
        TensorBuffer conversion = conversions.get(embedding);
        if (conversion == null) {
            conversion = resources.convertedCopy(ctx, input.elementType());
            conversions.put(embedding, conversion);
        }
        return conversion.tensor();
    }

    @Override
    public void close() {
        try (ResourceScope scope = new ResourceScope()) {
            conversions.values().forEach(scope::add);
            conversions.clear();
        }
    }
}
