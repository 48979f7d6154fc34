package dev.flux2.onnx.bundle;

import dev.flux2.api.ModelLoadException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Finds the ONNX graphs of a folder and recognises each by its signature: every {@code *.onnx} file in the folder
 * and in its direct subfolders (exports that keep one folder per part, such as {@code text_encoder/model.onnx}),
 * hidden files and folders left out, in name order. Only the graph headers are read, never the weights. Stateless.
 */
final class FolderScan {
    /** How deep below the folder graphs are looked for: the folder itself and its direct subfolders. */
    static final int DEPTH = 2;

    private FolderScan() {}

    /**
     * @param folder a folder
     * @return whether it holds at least one graph file where {@link #scan} looks
     */
    public static boolean hasGraphs(Path folder) {
        return !graphFiles(folder).isEmpty();
    }

    /**
     * @param folder a folder
     * @return every graph found, recognised
     * @throws ModelLoadException naming a graph file whose header cannot be read
     */
    public static List<GraphClassification> scan(Path folder) {
        List<GraphClassification> found = new ArrayList<>();
        for (Path file : graphFiles(folder)) {
            found.add(classify(file));
        }
        return found;
    }

    /**
     * @param file a graph file
     * @return what it is
     * @throws ModelLoadException when its header cannot be read
     */
    public static GraphClassification classify(Path file) {
        try {
            return GraphClassifier.classify(OnnxHeaderReader.read(file.toAbsolutePath()));
        } catch (IOException e) {
            throw new ModelLoadException("graph " + file.toAbsolutePath() + " cannot be read: " + e.getMessage(), e);
        }
    }

    private static List<Path> graphFiles(Path folder) {
        if (!Files.isDirectory(folder)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(folder.toAbsolutePath(), DEPTH)) {
            return files.filter(Files::isRegularFile)
                    .filter(p ->
                            p.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".onnx"))
                    .filter(p -> !hidden(folder.toAbsolutePath().relativize(p)))
                    .sorted()
                    .toList();
        } catch (IOException | java.io.UncheckedIOException e) {
            throw new ModelLoadException("cannot list the graphs of " + folder.toAbsolutePath() + ": " + e, e);
        }
    }

    private static boolean hidden(Path relative) {
        for (Path part : relative) {
            if (part.toString().startsWith(".")) {
                return true;
            }
        }
        return false;
    }
}
