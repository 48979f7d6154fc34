package dev.flux2.hub;

import dev.flux2.hub.FileVerification.Status;
import dev.flux2.hub.KnownBundles.KnownBundle;
import dev.flux2.hub.KnownBundles.KnownFile;
import dev.flux2.spi.ModelFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/** Hashes every file of a cached snapshot or a plain folder again ({@link ModelHub#verify}); no request. */
final class Verifier {
    private final KnownBundles known;

    Verifier(KnownBundles known) {
        this.known = known;
    }

    /**
     * @param repo the cached repository
     * @param ref the repository and revision
     * @return the report
     * @throws HubException when the cache holds no snapshot for the revision
     */
    VerificationReport cached(CacheRepo repo, RepoRef ref) {
        String commit = ref.isCommit()
                ? ref.revision()
                : repo.readRef(ref.revision())
                        .orElseThrow(() ->
                                new HubException("the hub cache " + repo.cacheDir() + " has no commit for " + ref + " ("
                                        + repo.repoDir().resolve("refs").resolve(ref.revision()) + " is missing)"));
        Path snapshot = repo.snapshot(commit);
        if (!Files.isDirectory(snapshot)) {
            throw new HubException("the hub cache has no snapshot of " + ref + ": " + snapshot + " does not exist");
        }
        Optional<KnownBundle> pinned = known.find(ref.repo(), commit);
        Map<String, RemoteFile> expected = new LinkedHashMap<>();
        repo.readSnapshotRecord(commit).ifPresent(list -> list.forEach(f -> expected.put(f.path(), f)));
        for (String rel : bundleFilesIn(snapshot)) {
            expected.computeIfAbsent(rel, p -> new RemoteFile(p, -1, blobEtag(repo, snapshot.resolve(p))));
        }
        return new VerificationReport(
                snapshot, basis(pinned, expected, "the cache"), check(snapshot, expected, pinned));
    }

    /**
     * @param dir a plain folder
     * @return the report
     */
    VerificationReport folder(Path dir) {
        Map<String, RemoteFile> expected = new LinkedHashMap<>();
        String commit = null;
        for (String rel : bundleFilesIn(dir)) {
            Optional<String[]> meta = FolderStore.readMetadata(dir, rel);
            if (meta.isPresent() && commit == null) {
                commit = meta.get()[0];
            }
            expected.put(rel, new RemoteFile(rel, -1, meta.map(m -> m[1]).orElse(null)));
        }
        Optional<KnownBundle> pinned = commit == null ? Optional.empty() : known.findAnyRepo(commit);
        return new VerificationReport(
                dir, basis(pinned, expected, ".cache/huggingface/download"), check(dir, expected, pinned));
    }

    /**
     * What the files are compared with, as it is: the pinned list only when the folder is the pinned bundle, the
     * hub's ETags only as many as are recorded (a folder copied by hand has none).
     */
    static String basis(Optional<KnownBundle> pinned, Map<String, RemoteFile> expected, String etagHome) {
        long etags = expected.values().stream().filter(f -> f.etag() != null).count();
        List<String> parts = new ArrayList<>();
        pinned.ifPresent(k -> parts.add("the pinned list (size, BLAKE3)"));
        if (etags > 0) {
            parts.add("the hub ETags in " + etagHome + " (" + etags + " of " + expected.size() + " file"
                    + (expected.size() == 1 ? "" : "s") + ")");
        }
        return parts.isEmpty()
                ? "nothing (not the pinned bundle, and no hub ETag is recorded)"
                : String.join(" and ", parts);
    }

    private static List<FileVerification> check(
            Path folder, Map<String, RemoteFile> expected, Optional<KnownBundle> pinned) {
        pinned.ifPresent(k -> k.files().forEach((p, f) -> expected.putIfAbsent(p, new RemoteFile(p, f.bytes(), null))));
        List<FileVerification> out = new ArrayList<>();
        for (RemoteFile f : expected.values()) {
            KnownFile pin = pinned.map(k -> k.files().get(f.path())).orElse(null);
            out.add(one(folder, f, pin));
        }
        return out;
    }

    private static FileVerification one(Path folder, RemoteFile f, KnownFile pin) {
        Path file = RepoPaths.resolve(folder, f.path());
        long expectedBytes = pin != null ? pin.bytes() : f.size();
        if (!Files.isRegularFile(file)) {
            return new FileVerification(f.path(), Status.MISSING, expectedBytes, -1, "none", null, null);
        }
        try {
            Digests.Kind kind = f.etag() == null
                    ? Digests.Kind.NONE
                    : Digests.kindOf(f.etag().toLowerCase(Locale.ROOT));
            Digests.Result r = Digests.hash(file, kind, pin != null);
            if (expectedBytes >= 0 && r.size() != expectedBytes) {
                return new FileVerification(f.path(), Status.MISMATCH, expectedBytes, r.size(), "size", null, null);
            }
            if (r.etagDigest().isPresent() && !r.etagDigest().get().equalsIgnoreCase(f.etag())) {
                return new FileVerification(
                        f.path(),
                        Status.MISMATCH,
                        expectedBytes,
                        r.size(),
                        Digests.label(kind),
                        f.etag(),
                        r.etagDigest().get());
            }
            if (pin != null && !pin.blake3().equals(r.blake3().orElse(""))) {
                return new FileVerification(
                        f.path(),
                        Status.MISMATCH,
                        expectedBytes,
                        r.size(),
                        "BLAKE3",
                        pin.blake3(),
                        r.blake3().orElse(null));
            }
            if (r.etagDigest().isPresent()) {
                return new FileVerification(
                        f.path(),
                        Status.OK,
                        expectedBytes,
                        r.size(),
                        Digests.label(kind),
                        f.etag(),
                        r.etagDigest().get());
            }
            if (pin != null) {
                return new FileVerification(
                        f.path(),
                        Status.OK,
                        expectedBytes,
                        r.size(),
                        "BLAKE3",
                        pin.blake3(),
                        r.blake3().get());
            }
            return new FileVerification(f.path(), Status.UNVERIFIABLE, expectedBytes, r.size(), "none", null, null);
        } catch (IOException e) {
            throw new HubException("cannot read " + file + ": " + ModelFiles.reason(e), e);
        }
    }

    private static String blobEtag(CacheRepo repo, Path pointer) {
        try {
            if (Files.isSymbolicLink(pointer) && Files.exists(pointer)) {
                Path target = pointer.toRealPath();
                if (target.getParent().getFileName().toString().equals("blobs")) {
                    return target.getFileName().toString();
                }
            }
        } catch (IOException e) {
            return null;
        }
        return null;
    }

    private static List<String> bundleFilesIn(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(p -> !Files.isDirectory(p))
                    .map(p -> dir.relativize(p).toString().replace('\\', '/'))
                    .filter(RepoPaths::isBundleFile)
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new HubException("cannot list " + dir + ": " + e.getMessage(), e);
        }
    }
}
