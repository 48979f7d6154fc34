package dev.flux2.onnx.bundle;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The inputs and outputs a graph file declares, in declaration order (initializers excluded).
 *
 * @param file the graph file it was read from
 * @param inputs the graph inputs that are not initializers
 * @param outputs the graph outputs
 * @param externalData the external-data files its initializers reference ({@code location}, relative to the graph
 *     file's folder) with the bytes each must hold at least (the largest {@code offset + length})
 */
public record GraphSignature(
        Path file, List<TensorSignature> inputs, List<TensorSignature> outputs, Map<String, Long> externalData) {

    /** Validates and copies. */
    public GraphSignature {
        Objects.requireNonNull(file, "file");
        inputs = List.copyOf(inputs);
        outputs = List.copyOf(outputs);
        externalData = Collections.unmodifiableMap(new LinkedHashMap<>(externalData));
    }

    /**
     * A signature of a graph without external data.
     *
     * @param file the graph file
     * @param inputs the inputs
     * @param outputs the outputs
     */
    public GraphSignature(Path file, List<TensorSignature> inputs, List<TensorSignature> outputs) {
        this(file, inputs, outputs, Map.of());
    }

    /** @param name an input name @return the input, if the graph has it */
    public Optional<TensorSignature> input(String name) {
        return inputs.stream().filter(t -> t.name().equals(name)).findFirst();
    }

    /** @param name an output name @return the output, if the graph has it */
    public Optional<TensorSignature> output(String name) {
        return outputs.stream().filter(t -> t.name().equals(name)).findFirst();
    }

    /** @return the input names in declaration order */
    List<String> inputNames() {
        return inputs.stream().map(TensorSignature::name).collect(Collectors.toList());
    }

    /** @return the output names in declaration order */
    List<String> outputNames() {
        return outputs.stream().map(TensorSignature::name).collect(Collectors.toList());
    }
}
