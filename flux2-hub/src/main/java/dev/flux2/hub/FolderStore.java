package dev.flux2.hub;

import dev.flux2.hub.KnownBundles.KnownFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Files in a plain folder ({@code flux2 download --dir}), with the bookkeeping {@code huggingface_hub} keeps for a
 * {@code local_dir} download ({@code _local_folder.get_local_download_paths}) under
 * {@code {dir}/.cache/huggingface/download/}: {@code {path}.metadata} (commit, ETag, timestamp, one per line, as
 * {@code write_download_metadata} writes it), {@code {path}.lock}, and the transfer in progress
 * {@code {path}.{etag}.incomplete}; flux2-java adds {@code {path}.flux2-verified}.
 */
final class FolderStore implements Store {
    private static final Logger LOG = LoggerFactory.getLogger(FolderStore.class);

    private final Path dir;
    private final Path meta;
    private final String commit;

    FolderStore(Path dir, String commit) {
        this.dir = dir;
        this.meta = dir.resolve(".cache").resolve("huggingface").resolve("download");
        this.commit = commit;
    }

    static Path metaDir(Path dir) {
        return dir.resolve(".cache").resolve("huggingface").resolve("download");
    }

    @Override
    public Path folder() {
        return dir;
    }

    private Path target(RemoteFile file) {
        return RepoPaths.resolve(dir, file.path());
    }

    private Path side(RemoteFile file, String suffix) {
        return RepoPaths.resolve(meta, file.path() + suffix);
    }

    @Override
    public Path lockFile(RemoteFile file) {
        return side(file, ".lock");
    }

    @Override
    public Path incomplete(RemoteFile file) {
        return side(file, "." + file.etag() + ".incomplete");
    }

    @Override
    public Optional<String> problem(RemoteFile file, KnownFile pinned) throws IOException {
        Path target = target(file);
        if (!Files.isRegularFile(target)) {
            return Optional.of("missing from " + dir);
        }
        Path record = side(file, ".flux2-verified");
        String blake3 = pinned == null ? null : pinned.blake3();
        if (VerifiedRecord.read(record)
                .filter(r -> r.vouchesFor(target, file.etag(), blake3))
                .isPresent()) {
            return Optional.empty();
        }
        ContentCheck.Outcome outcome = ContentCheck.check(target, file.size(), file.etag(), pinned);
        if (outcome.ok()) {
            record(file, target, outcome);
            return Optional.empty();
        }
        LOG.warn(
                "{} in {} is not {} at {}: {}; it is deleted and fetched again",
                file.path(),
                dir,
                file.path(),
                commit,
                outcome.describe());
        Files.delete(target);
        VerifiedRecord.delete(record);
        return Optional.of("damaged in " + dir + " (" + outcome.describe() + "); deleted");
    }

    @Override
    public void install(RemoteFile file, Path transfer, ContentCheck.Outcome outcome) throws IOException {
        Path target = target(file);
        Files.createDirectories(target.getParent());
        Files.move(transfer, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        record(file, target, outcome);
    }

    private void record(RemoteFile file, Path target, ContentCheck.Outcome outcome) throws IOException {
        VerifiedRecord.of(target, file.etag(), outcome.blake3()).write(side(file, ".flux2-verified"));
        Path metadata = side(file, ".metadata");
        Files.createDirectories(metadata.getParent());
        // _local_folder.write_download_metadata: commit hash, etag, timestamp (seconds), one per line.
        Files.writeString(
                metadata,
                commit + "\n" + file.etag() + "\n" + System.currentTimeMillis() / 1000.0 + "\n",
                StandardCharsets.UTF_8);
    }

    @Override
    public void expect(String commit, List<RemoteFile> files) throws IOException {
        // huggingface_hub keeps its local-dir bookkeeping out of git with a '*' .gitignore.
        Path gitignore = dir.resolve(".cache").resolve("huggingface").resolve(".gitignore");
        if (!Files.exists(gitignore)) {
            Files.createDirectories(gitignore.getParent());
            Files.writeString(gitignore, "*\n", StandardCharsets.UTF_8);
        }
    }

    /**
     * @param dir a plain folder
     * @param path a file path in it
     * @return the commit and ETag its {@code .metadata} records, if any
     */
    static Optional<String[]> readMetadata(Path dir, String path) {
        Path metadata = RepoPaths.resolve(metaDir(dir), path + ".metadata");
        try {
            if (Files.isRegularFile(metadata)) {
                List<String> lines = Files.readAllLines(metadata, StandardCharsets.UTF_8);
                if (lines.size() >= 2) {
                    return Optional.of(
                            new String[] {lines.get(0).strip(), lines.get(1).strip()});
                }
            }
        } catch (IOException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }
}
