package dev.flux2.hub;

import dev.flux2.hub.KnownBundles.KnownFile;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Files in the hub cache at one commit: contents in {@code blobs/{etag}}, the model folder
 * {@code snapshots/{commit}/} made of relative symbolic links to them, copies where links are impossible (as
 * {@code file_download._create_symlink} falls back to).
 */
final class CacheStore implements Store {
    private static final Logger LOG = LoggerFactory.getLogger(CacheStore.class);

    private final CacheRepo repo;
    private final String commit;

    CacheStore(CacheRepo repo, String commit) {
        this.repo = repo;
        this.commit = commit;
    }

    @Override
    public Path folder() {
        return repo.snapshot(commit);
    }

    Path pointer(RemoteFile file) {
        return RepoPaths.resolve(folder(), file.path());
    }

    @Override
    public Path lockFile(RemoteFile file) {
        return repo.lockFile(file.etag());
    }

    @Override
    public Path incomplete(RemoteFile file) {
        Path blob = repo.blob(file.etag());
        return blob.resolveSibling(blob.getFileName() + ".incomplete");
    }

    @Override
    public Optional<String> problem(RemoteFile file, KnownFile pinned) throws IOException {
        Path blob = repo.blob(file.etag());
        Path pointer = pointer(file);
        String blake3 = pinned == null ? null : pinned.blake3();
        if (Files.isRegularFile(blob, LinkOption.NOFOLLOW_LINKS)) {
            Optional<String> bad = verified(blob, repo.verifiedRecord(file.etag()), file, pinned, blake3);
            if (bad.isPresent()) {
                Files.deleteIfExists(blob);
                if (Files.isSymbolicLink(pointer)) {
                    Files.deleteIfExists(pointer);
                }
                return bad;
            }
            link(blob, pointer);
            return Optional.empty();
        }
        // No blob: links were impossible and the blob was moved into the snapshot (a copy).
        if (Files.isRegularFile(pointer, LinkOption.NOFOLLOW_LINKS)) {
            Optional<String> bad = verified(pointer, repo.copyRecord(commit, file.path()), file, pinned, blake3);
            if (bad.isEmpty()) {
                return bad;
            }
            Files.deleteIfExists(pointer);
            return bad;
        } else if (Files.isSymbolicLink(pointer)) {
            Files.deleteIfExists(pointer); // dangling: its blob is gone
        }
        return Optional.of("missing from the cache");
    }

    /** Trusts a recorded full hash while size and mtime are unchanged; otherwise hashes now and records. */
    private Optional<String> verified(Path content, Path record, RemoteFile file, KnownFile pinned, String blake3)
            throws IOException {
        if (VerifiedRecord.read(record)
                .filter(r -> r.vouchesFor(content, file.etag(), blake3))
                .isPresent()) {
            return Optional.empty();
        }
        ContentCheck.Outcome outcome = ContentCheck.check(content, file.size(), file.etag(), pinned);
        if (outcome.ok()) {
            VerifiedRecord.of(content, file.etag(), outcome.blake3()).write(record);
            return Optional.empty();
        }
        LOG.warn(
                "{} of {} at {} in the cache ({}) is damaged: {}; it is deleted and fetched again",
                file.path(),
                repo.repo(),
                commit,
                content,
                outcome.describe());
        VerifiedRecord.delete(record);
        return Optional.of("damaged in the cache (" + outcome.describe() + "); deleted");
    }

    @Override
    public void install(RemoteFile file, Path transfer, ContentCheck.Outcome outcome) throws IOException {
        Path blob = repo.blob(file.etag());
        Files.move(transfer, blob, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        VerifiedRecord.of(blob, file.etag(), outcome.blake3()).write(repo.verifiedRecord(file.etag()));
        link(blob, pointer(file));
    }

    @Override
    public void expect(String commit, List<RemoteFile> files) throws IOException {
        repo.writeSnapshotRecord(commit, files);
    }

    /**
     * Points {@code pointer} at {@code blob} with a relative link ({@code ../../blobs/{etag}}, one more
     * {@code ..} per sub-folder), or copies the blob when the file system refuses links.
     */
    private void link(Path blob, Path pointer) throws IOException {
        Files.createDirectories(pointer.getParent());
        if (Files.isSymbolicLink(pointer)) {
            if (Files.exists(pointer) && Files.isSameFile(pointer, blob)) {
                return;
            }
            Files.delete(pointer);
        } else if (Files.exists(pointer, LinkOption.NOFOLLOW_LINKS)) {
            Files.delete(pointer); // a copy from an earlier run without links; the blob is authoritative
        }
        Path relative = pointer.getParent()
                .toAbsolutePath()
                .normalize()
                .relativize(blob.toAbsolutePath().normalize());
        try {
            Files.createSymbolicLink(pointer, relative);
        } catch (FileAlreadyExistsException e) {
            // Another thread or process linked it between the delete and the create (file_download._create_symlink).
            if (!Files.isSameFile(pointer, blob)) {
                throw e;
            }
        } catch (UnsupportedOperationException | FileSystemException e) {
            LOG.debug("symbolic links unavailable in {} ({}); copying {}", pointer.getParent(), e, blob);
            Path tmp = pointer.resolveSibling(pointer.getFileName() + ".flux2-copy.tmp");
            Files.copy(blob, tmp, StandardCopyOption.REPLACE_EXISTING);
            Files.move(tmp, pointer, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            VerifiedRecord.of(pointer, etagOf(blob), null).write(repo.copyRecord(commit, relativePath(pointer)));
        }
    }

    private static String etagOf(Path blob) {
        return blob.getFileName().toString();
    }

    private String relativePath(Path pointer) {
        return folder().relativize(pointer).toString().replace('\\', '/');
    }
}
