package dev.flux2.onnx.bundle;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What one graph file was recognised as.
 *
 * @param signature the graph's real signature (its file is absolute)
 * @param role the role its signature matches, or empty for a graph of no known role
 * @param family whose tensor names it uses
 * @param note for a graph of no known role: why, in a few words (for example that it is a part of a split VAE
 *     decoder); empty otherwise
 */
public record GraphClassification(
        GraphSignature signature, Optional<GraphKind> role, SignatureFamily family, String note) {

    /** Checks for nulls. */
    public GraphClassification {
        Objects.requireNonNull(signature, "signature");
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(family, "family");
        Objects.requireNonNull(note, "note");
    }

    /** @return the graph file */
    public Path file() {
        return signature.file();
    }

    /**
     * @return the graph as one line for messages: file, what it is, inputs and outputs, for example
     *     {@code transformer.onnx (denoiser, hlhc): hidden_states FLOAT [1, image_seq, 128], … -> noise_pred …}
     */
    public String describe() {
        String what = role.map(r -> r.label() + ", " + family.label()).orElse("no known role: " + note);
        return file() + " (" + what + "): " + tensors(signature.inputs()) + " -> " + tensors(signature.outputs());
    }

    private static String tensors(java.util.List<TensorSignature> list) {
        return list.isEmpty()
                ? "none"
                : list.stream().map(TensorSignature::toString).collect(Collectors.joining(", ", "[", "]"));
    }
}
