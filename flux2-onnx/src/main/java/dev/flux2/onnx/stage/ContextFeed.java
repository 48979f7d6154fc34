package dev.flux2.onnx.stage;

import ai.onnxruntime.OnnxTensor;
import dev.flux2.onnx.graph.TensorSignature;
import dev.flux2.onnx.tensor.TensorBuffer;
import dev.flux2.spi.TextEmbedding;

/**
 * Gives a transformer the text context in the element type its {@code ctx} input takes. Normally the embedding's
 * own tensor is fed as is; when the text encoder's output type differs (an fp32 encoder with an fp16 transformer,
 * or the reverse), one converted copy is made per embedding and reused for every step. Not thread-safe: one
 * generation owns it.
 */
final class ContextFeed implements AutoCloseable {
    private final StageResources resources;
    private final TensorSignature input;
    private OnnxTextEmbedding converted;
    private TensorBuffer conversion;

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
        if (converted != embedding) {
            closeConversion();
            conversion = resources.convertedCopy(ctx, input.elementType());
            converted = embedding;
        }
        return conversion.tensor();
    }

    private void closeConversion() {
        if (conversion != null) {
            conversion.close();
            conversion = null;
            converted = null;
        }
    }

    @Override
    public void close() {
        closeConversion();
    }
}
