package dev.flux2.api;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A human-oriented description of a model folder: its files with their expected and actual sizes, each graph's
 * inputs and outputs, and further backend-specific facts. Produced by {@link dev.flux2.Flux2Models#inspect} without loading
 * weights; it also describes an incomplete folder (missing files are listed as such), so a downloader can learn
 * which files a bundle needs and check them.
 *
 * @param directory the model folder
 * @param backend the backend that understood the folder
 * @param variant the bundle's variant label
 * @param files every file the model uses or may use, with expected and actual sizes; a file listed by another
 *     file (such as the weight shards a manifest names) appears once that file is present
 * @param graphs every graph, with its real inputs and outputs (empty lists when a graph cannot be read)
 * @param details further facts of the backend, in display order (for the ONNX backend: defaults from the config,
 *     the fused-denoiser convention, the execution providers this runtime offers, every problem found, …); the
 *     facts applications act on are under the keys of {@link DetailKeys} and read with the typed accessors
 *     ({@link #problems()}, {@link #partsComplete()}, {@link #layout()}, {@link #tokenizerDir()},
 *     {@link #textSequenceLength()})
 */
public record ModelSummary(
        Path directory,
        String backend,
        String variant,
        List<FileEntry> files,
        List<GraphEntry> graphs,
        Map<String, String> details) {

    /** Copies the collections; {@code details} keeps its iteration order. */
    public ModelSummary {
        Objects.requireNonNull(directory, "directory");
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(variant, "variant");
        files = List.copyOf(files);
        graphs = List.copyOf(graphs);
        details = Collections.unmodifiableMap(new LinkedHashMap<>(details));
    }

    /**
     * The detail keys applications read (the CLI's {@code info} and {@code tokenize}), in one place for the backends
     * that write them and the applications that read them; the typed accessors of {@link ModelSummary} read them.
     */
    public static final class DetailKeys {
        /** Every problem found, joined by {@code "; "}, or {@link #NO_PROBLEMS}. */
        public static final String PROBLEMS = "problems";
        /** The value of {@link #PROBLEMS} when there is none. */
        public static final String NO_PROBLEMS = "none";
        /**
         * {@code false} when the parts found do not make a model ({@link #PROBLEMS} says why), {@code true}
         * otherwise (files may still be missing or short).
         */
        public static final String PARTS_COMPLETE = "parts_complete";
        /** The layout the backend detected. */
        public static final String LAYOUT = "layout";
        /** The tokenizer folder, relative to the model folder (or absolute when elsewhere). */
        public static final String TOKENIZER_DIR = "tokenizer_dir";
        /** The text sequence length the tokenizer pads and truncates to, a positive integer. */
        public static final String TEXT_SEQ_LEN = "text_seq_len";

        private DetailKeys() {}
    }

    /** @return every problem the backend found ({@link DetailKeys#PROBLEMS}), empty when it reports none */
    public Optional<String> problems() {
        return Optional.ofNullable(details.get(DetailKeys.PROBLEMS)).filter(p -> !p.equals(DetailKeys.NO_PROBLEMS));
    }

    /**
     * @return false only when the backend reports that the parts found do not make a model
     *     ({@link DetailKeys#PARTS_COMPLETE}); {@link #problems()} then says why
     */
    public boolean partsComplete() {
        return !"false".equals(details.get(DetailKeys.PARTS_COMPLETE));
    }

    /** @return the layout the backend detected ({@link DetailKeys#LAYOUT}), when it reports one */
    public Optional<String> layout() {
        return Optional.ofNullable(details.get(DetailKeys.LAYOUT));
    }

    /** @return the tokenizer folder relative to {@link #directory()} ({@link DetailKeys#TOKENIZER_DIR}), if reported */
    public Optional<String> tokenizerDir() {
        return Optional.ofNullable(details.get(DetailKeys.TOKENIZER_DIR));
    }

    /**
     * @return the text sequence length ({@link DetailKeys#TEXT_SEQ_LEN}), when the backend reports one
     * @throws ModelLoadException when the backend reports one that is not a positive integer
     */
    public OptionalInt textSequenceLength() {
        String value = details.get(DetailKeys.TEXT_SEQ_LEN);
        if (value == null) {
            return OptionalInt.empty();
        }
        try {
            int length = Integer.parseInt(value);
            if (length > 0) {
                return OptionalInt.of(length);
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new ModelLoadException("backend '" + backend + "' reports " + DetailKeys.TEXT_SEQ_LEN + " '" + value
                + "' for " + directory + ", expected a positive integer");
    }

    /**
     * One file of the model folder.
     *
     * @param path path relative to the model folder, with {@code /} separators
     * @param expectedBytes size the model's configuration promises, or -1 when it promises none
     * @param actualBytes size on disk, or -1 when the file is missing
     * @param optional whether the model is usable without it (for example a graph the pipeline can do without);
     *     an optional file that is present is checked like any other
     * @param problem what is wrong with the file (missing, wrong size, a shard set it lists that does not add up,
     *     …), or empty when nothing is
     */
    public record FileEntry(String path, long expectedBytes, long actualBytes, boolean optional, String problem) {
        /**
         * Validates: a missing required file, or a present one whose size differs from the promised size, must
         * say what is wrong.
         */
        public FileEntry {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(problem, "problem");
            boolean missingRequired = actualBytes < 0 && !optional;
            boolean wrongSize = actualBytes >= 0 && expectedBytes >= 0 && expectedBytes != actualBytes;
            if ((missingRequired || wrongSize) && problem.isEmpty()) {
                throw new IllegalArgumentException(path + " is " + (missingRequired ? "missing" : "of the wrong size")
                        + " (expected " + expectedBytes + " bytes, found " + actualBytes + "), so it needs a problem");
            }
        }

        /** @return whether the file is on disk */
        public boolean present() {
            return actualBytes >= 0;
        }

        /** @return whether nothing is wrong with the file (an optional file may be absent) */
        public boolean ok() {
            return problem.isEmpty();
        }
    }

    /**
     * One graph of the bundle.
     *
     * @param key the graph's key (for the ONNX backend its {@code models} key, for example {@code transformer})
     * @param file the graph file name (relative to the model folder, or absolute for a part taken from elsewhere)
     * @param inputs the graph's real inputs
     * @param outputs the graph's real outputs
     * @param role the part of the model the graph plays, with its signature family (for example
     *     {@code denoiser (hlhc)}), or empty when not known
     * @param mapping which graph tensor plays which part, in feeding order (for example {@code latent tokens} →
     *     {@code hidden_states}); empty when the graph's signature could not be resolved
     */
    public record GraphEntry(
            String key,
            String file,
            List<TensorEntry> inputs,
            List<TensorEntry> outputs,
            String role,
            Map<String, String> mapping) {
        /** Copies the collections, keeping the mapping's order. */
        public GraphEntry {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(file, "file");
            inputs = List.copyOf(inputs);
            outputs = List.copyOf(outputs);
            Objects.requireNonNull(role, "role");
            mapping = Collections.unmodifiableMap(new LinkedHashMap<>(mapping));
        }

        /**
         * A graph without a known role or mapping.
         *
         * @param key the graph's key
         * @param file the graph file name
         * @param inputs the graph's real inputs
         * @param outputs the graph's real outputs
         */
        public GraphEntry(String key, String file, List<TensorEntry> inputs, List<TensorEntry> outputs) {
            this(key, file, inputs, outputs, "", Map.of());
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
