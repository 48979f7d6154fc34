package dev.flux2.onnx.runtime;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/**
 * What the installed runtimes ({@link WebGpuRuntime}, {@link CudaRuntime}) share: the staging folder renamed into
 * place, the other installed versions named in a "not installed" message, digests and their abbreviation in
 * messages. Stateless.
 */
final class RuntimeFolders {
    private RuntimeFolders() {}

    /**
     * @param target the folder the runtime is installed into
     * @param key its folder name, for the staging folder's name
     * @return a new staging folder beside the target, starting with a dot (ignored by the version listing)
     * @throws RuntimeLibraryException when it cannot be created
     */
    static Path staging(Path target, String key) {
        try {
            Files.createDirectories(target.getParent());
            return Files.createTempDirectory(target.getParent(), "." + key + ".staging-");
        } catch (IOException e) {
            throw new RuntimeLibraryException("cannot create the runtime folder " + target.getParent() + ": " + e, e);
        }
    }

    /**
     * Renames a complete staging folder into place. An invalid copy already there is moved aside first, so that
     * the rename stays atomic; when another install finished first, its copy is kept if it verifies.
     *
     * @param staging the complete, verified staging folder
     * @param target the runtime folder
     * @param key the folder name, for the aside folder's name
     * @param targetValid whether the target holds a verified copy (after a lost race)
     * @throws RuntimeLibraryException when the rename fails
     */
    static void moveIntoPlace(Path staging, Path target, String key, BooleanSupplier targetValid) {
        try {
            if (Files.exists(target)) {
                Path old = Files.createTempDirectory(target.getParent(), "." + key + ".old-");
                Files.delete(old);
                Files.move(target, old, StandardCopyOption.ATOMIC_MOVE);
                deleteTree(old);
            }
            Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (FileAlreadyExistsException | DirectoryNotEmptyException e) {
            if (!targetValid.getAsBoolean()) {
                throw new RuntimeLibraryException("cannot install into " + target + ": " + e, e);
            }
        } catch (AtomicMoveNotSupportedException e) {
            throw new RuntimeLibraryException("cannot rename the staging folder into " + target + ": " + e, e);
        } catch (IOException e) {
            throw new RuntimeLibraryException("cannot install into " + target + ": " + e, e);
        }
    }

    /**
     * @param home the flux2 home folder
     * @param version the version looked for
     * @return {@code ""}, or a sentence naming the other ONNX Runtime versions installed under {@code home/runtime}
     */
    static String otherVersions(Path home, String version) {
        Path runtimes = home.resolve("runtime");
        if (!Files.isDirectory(runtimes)) {
            return "";
        }
        try (Stream<Path> s = Files.list(runtimes)) {
            List<String> others = s.filter(Files::isDirectory)
                    .map(p -> p.getFileName().toString())
                    .filter(v -> !v.equals(version) && !v.startsWith("."))
                    .sorted()
                    .toList();
            return others.isEmpty()
                    ? ""
                    : " (installed: ONNX Runtime " + String.join(", ", others) + ", but this flux2-java's ONNX Runtime"
                            + " Java binding is " + version + " and needs that version's library)";
        } catch (IOException e) {
            return "";
        }
    }

    /** @return the file's sha512 as lower-case hex; a read failure is a {@link RuntimeLibraryException} */
    static String sha512(Path file) {
        try {
            return Digests.sha512Hex(file);
        } catch (IOException e) {
            throw new RuntimeLibraryException("cannot read " + file + ": " + e, e);
        }
    }

    /** @return the first 24 characters of a digest, for messages */
    /**
     * @param src a {@code --from} that is neither a regular file nor a folder
     * @return what it is instead: "does not exist", "is a FIFO, socket or device …, not a regular file" (a
     *     {@code /dev/zero} was called "no such file")
     */
    static String whyNoSource(Path src) {
        return dev.flux2.spi.ModelFiles.notRegular(src).orElse("is not a regular file or folder");
    }

    static String abbreviate(String digest) {
        return digest.length() > 24 ? digest.substring(0, 24) + "…" : digest;
    }

    /** Deletes a folder and what it holds, best effort: a staging folder left behind starts with a dot. */
    static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    // Left behind: a staging folder starts with a dot and is ignored by locate.
                }
            });
        } catch (IOException e) {
            // As above.
        }
    }
}
