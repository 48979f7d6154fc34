package dev.flux2.onnx.bundle;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The tensor names a model entry declares. An empty list means the config does not declare them and the graph's
 * own names are used.
 *
 * @param inputs declared input names, in config order
 * @param outputs declared output names, in config order
 * @param residualInput for a VAE post stage: the input that takes the pre stage's residual ({@code residual_input})
 * @param attentionInput for a VAE post stage: the input that takes the attention result ({@code attn_input})
 */
record TensorNames(
        List<String> inputs, List<String> outputs, Optional<String> residualInput, Optional<String> attentionInput) {

    /** Copies the lists. */
    public TensorNames {
        inputs = List.copyOf(inputs);
        outputs = List.copyOf(outputs);
        Objects.requireNonNull(residualInput, "residualInput");
        Objects.requireNonNull(attentionInput, "attentionInput");
    }
}
