package dev.flux2.hub;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * One repository's folder in the hub cache, laid out as {@code huggingface_hub} lays it out
 * ({@code file_download._hf_hub_download_to_cache_dir}):
 *
 * <pre>
 * {cache}/models--{owner}--{name}/blobs/{etag}                  file contents, named by ETag
 * {cache}/models--{owner}--{name}/blobs/{etag}.incomplete       a transfer in progress (resumed)
 * {cache}/models--{owner}--{name}/snapshots/{commit}/{path}     relative symbolic link to ../../blobs/{etag}
 * {cache}/models--{owner}--{name}/refs/{revision}               the commit a branch or tag pointed at
 * {cache}/.locks/models--{owner}--{name}/{etag}.lock            lock held while a blob is fetched
 * </pre>
 *
 * <p>flux2-java adds, under {@code .locks} (which {@code scan-cache} skips): {@code {etag}.flux2-verified}
 * (the blob was hashed in full and matched, see {@link VerifiedRecord}) and {@code snapshot-{commit}.flux2.json}
 * (the list of files of a complete model at that commit).
 */
final class CacheRepo {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path cacheDir;
    private final String repo;
    private final Path repoDir;
    private final Path lockDir;

    CacheRepo(Path cacheDir, String repo) {
        this.cacheDir = cacheDir;
        this.repo = repo;
        String folder = new RepoRef(repo, RepoRef.DEFAULT_REVISION).cacheFolderName();
        this.repoDir = cacheDir.resolve(folder);
        this.lockDir = cacheDir.resolve(".locks").resolve(folder);
    }

    Path cacheDir() {
        return cacheDir;
    }

    String repo() {
        return repo;
    }

    Path repoDir() {
        return repoDir;
    }

    Path blob(String etag) {
        return repoDir.resolve("blobs").resolve(safeName(etag));
    }

    Path snapshot(String commit) {
        return repoDir.resolve("snapshots").resolve(safeName(commit));
    }

    Path lockFile(String etag) {
        return lockDir.resolve(safeName(etag) + ".lock");
    }

    Path verifiedRecord(String etag) {
        return lockDir.resolve(safeName(etag) + ".flux2-verified");
    }

    Path copyRecord(String commit, String path) {
        return RepoPaths.resolve(lockDir.resolve("copies").resolve(safeName(commit)), path + ".flux2-verified");
    }

    Path snapshotRecord(String commit) {
        return lockDir.resolve("snapshot-" + safeName(commit) + ".flux2.json");
    }

    /**
     * @param revision a branch or tag
     * @return the commit {@code refs/{revision}} records, if any
     */
    Optional<String> readRef(String revision) {
        Path ref = RepoPaths.resolve(repoDir.resolve("refs"), revision);
        try {
            if (Files.isRegularFile(ref)) {
                String commit = Files.readString(ref, StandardCharsets.UTF_8).strip();
                return RepoRef.isCommitId(commit) ? Optional.of(commit) : Optional.empty();
            }
        } catch (IOException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }

    /**
     * {@code file_download._cache_commit_hash_for_specific_revision}: writes {@code refs/{revision}} atomically
     * when the revision is not the commit itself and the ref changed.
     *
     * @param revision the branch or tag
     * @param commit its commit
     * @throws IOException when it cannot be written
     */
    void writeRef(String revision, String commit) throws IOException {
        if (revision.equals(commit) || readRef(revision).filter(commit::equals).isPresent()) {
            return;
        }
        Path ref = RepoPaths.resolve(repoDir.resolve("refs"), revision);
        Files.createDirectories(ref.getParent());
        Path tmp = ref.resolveSibling(
                ref.getFileName() + "." + UUID.randomUUID().toString().substring(0, 8) + ".tmp");
        Files.writeString(tmp, commit, StandardCharsets.UTF_8);
        Files.move(tmp, ref, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * @param commit a commit
     * @return the files recorded for a complete model at that commit, if recorded
     */
    Optional<List<RemoteFile>> readSnapshotRecord(String commit) {
        Path file = snapshotRecord(commit);
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        try {
            JsonNode root = JSON.readTree(file.toFile());
            List<RemoteFile> files = new ArrayList<>();
            for (JsonNode f : root.path("files")) {
                files.add(new RemoteFile(
                        f.path("path").asText(),
                        f.path("size").asLong(-1),
                        f.path("etag").asText(null)));
            }
            return files.isEmpty() || files.stream().anyMatch(f -> !f.described())
                    ? Optional.empty()
                    : Optional.of(files);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    void writeSnapshotRecord(String commit, List<RemoteFile> files) throws IOException {
        ObjectNode root = JSON.createObjectNode();
        root.put("note", "flux2-java: the files of a complete model at this commit");
        root.put("repo", repo);
        root.put("commit", commit);
        ArrayNode list = root.putArray("files");
        for (RemoteFile f : files) {
            list.addObject().put("path", f.path()).put("size", f.size()).put("etag", f.etag());
        }
        Path file = snapshotRecord(commit);
        Files.createDirectories(file.getParent());
        Path tmp = file.resolveSibling(file.getFileName() + "." + UUID.randomUUID() + ".tmp");
        Files.writeString(tmp, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root));
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** ETags and commits become file names: only plain names are accepted. */
    private static String safeName(String s) {
        if (s == null || s.isEmpty() || !s.matches("[A-Za-z0-9._+-]+") || s.startsWith(".")) {
            throw new HubException("'" + s + "' cannot name a file in the hub cache (expected an ETag or commit id)");
        }
        return s;
    }
}
