package dev.flux2.api;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A human-oriented description of a model folder: its files, each graph's inputs and outputs, the fused-denoiser
 * convention detected and the execution providers this runtime offers. Produced by {@link Flux2Models#inspect}.
 *
 * @param directory the model folder
 * @param backend the backend that understood the folder
 * @param variant the bundle's variant label
 * @param files every file the bundle names, with expected and actual sizes
 * @param graphs every graph, with its real inputs and outputs
 * @param fusedConvention the fused denoiser convention detected, or {@code "none"}
 * @param availableProviders execution providers offered by the runtime on the classpath
 * @param details further backend-specific facts, in display order
 */
public record ModelSummary(
        Path directory,
        String backend,
        String variant,
        List<FileEntry> files,
        List<GraphEntry> graphs,
        String fusedConvention,
        List<String> availableProviders,
        Map<String, String> details) {

    /** Copies the collections; {@code details} keeps its iteration order. */
    public ModelSummary {
        Objects.requireNonNull(directory, "directory");
        files = List.copyOf(files);
        graphs = List.copyOf(graphs);
        availableProviders = List.copyOf(availableProviders);
        details = Collections.unmodifiableMap(new LinkedHashMap<>(details));
    }

    /**
     * One file of the bundle.
     *
     * @param path path relative to the model folder
     * @param expectedBytes size the configuration promises, or -1 when it promises none
     * @param actualBytes size on disk, or -1 when the file is missing
     */
    public record FileEntry(String path, long expectedBytes, long actualBytes) {
        /** @return whether the file exists and, when a size is promised, has it */
        public boolean ok() {
            return actualBytes >= 0 && (expectedBytes < 0 || expectedBytes == actualBytes);
        }
    }

    /**
     * One graph of the bundle.
     *
     * @param key the configuration key (for example {@code transformer})
     * @param file the graph file name
     * @param inputs the graph's real inputs
     * @param outputs the graph's real outputs
     */
    public record GraphEntry(String key, String file, List<TensorEntry> inputs, List<TensorEntry> outputs) {
        /** Copies the lists. */
        public GraphEntry {
            inputs = List.copyOf(inputs);
            outputs = List.copyOf(outputs);
        }
    }

    /**
     * One tensor of a graph's signature.
     *
     * @param name the tensor name
     * @param elementType the element type (for example {@code FLOAT16})
     * @param shape the shape with symbolic dimensions by name (for example {@code [1, image_seq, 128]})
     */
    public record TensorEntry(String name, String elementType, String shape) {}
}
