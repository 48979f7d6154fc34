package dev.flux2.hub;

import dev.flux2.hub.KnownBundles.KnownBundle;
import dev.flux2.hub.KnownBundles.KnownFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resolution: look in the cache, fetch what is missing, verify, in the order {@code snapshot_download} follows
 * ({@code _snapshot_download.snapshot_download}): a commit id, or a branch or tag recorded in {@code refs/},
 * whose snapshot is complete is used without a single request; otherwise the revision's file list is asked for,
 * {@code refs/{revision}} written, and each missing file fetched, verified and linked.
 */
final class Resolver {
    private static final Logger LOG = LoggerFactory.getLogger(Resolver.class);
    private static final int PROBLEMS_SHOWN = 6;

    private final HubSettings settings;
    private HubHttp http;

    Resolver(HubSettings settings) {
        this.settings = settings;
    }

    /** What the cache holds for a reference, found without any request. */
    record LocalState(String commit, List<RemoteFile> files, List<String> problems) {
        boolean complete() {
            return commit != null && problems.isEmpty();
        }
    }

    ResolvedModel resolveCached(RepoRef ref) {
        return resolveCached(ref, FileSelection.ALL);
    }

    /**
     * @param selection the files wanted; {@link FileSelection#ALL} for the whole model, which the backend's check
     *     must then accept
     */
    ResolvedModel resolveCached(RepoRef ref, FileSelection selection) {
        CacheRepo repo = new CacheRepo(settings.cacheDir(), ref.repo());
        if (selection != FileSelection.ALL) {
            Optional<ResolvedModel> present = cachedSelection(repo, ref, selection);
            if (present.isPresent()) {
                return present.get();
            }
        }
        LocalState local = selection == FileSelection.ALL ? local(repo, ref) : local(repo, ref, selection);
        if (local.complete()) {
            Path folder = repo.snapshot(local.commit());
            LOG.debug("{} is complete in the cache at {}; no request made", ref, folder);
            long bytes = local.files().stream().mapToLong(RemoteFile::size).sum();
            return new ResolvedModel(folder, ref, local.commit(), local.files().size(), bytes, 0, 0, false);
        }
        if (settings.offline()) {
            throw new HubException("offline mode (HF_HUB_OFFLINE or the offline option) and " + ref
                    + " is not complete in the hub cache " + settings.cacheDir() + ": " + summary(local.problems()));
        }
        LOG.debug("{} is not complete in the cache: {}", ref, local.problems());
        RepoListing listing = api().listing(ref);
        try {
            repo.writeRef(ref.revision(), listing.commit());
        } catch (IOException e) {
            throw new HubException("cannot write " + repo.repoDir().resolve("refs") + ": " + e.getMessage(), e);
        }
        return fetchAll(ref, listing, new CacheStore(repo, listing.commit()), selection);
    }

    /**
     * The selected files of a snapshot whose complete file list flux2-java recorded, when every one is in place
     * and verified: found without a request.
     */
    private Optional<ResolvedModel> cachedSelection(CacheRepo repo, RepoRef ref, FileSelection selection) {
        LocalState local = local(repo, ref, selection);
        if (!local.complete() || local.files().isEmpty()) {
            return Optional.empty();
        }
        Path folder = repo.snapshot(local.commit());
        LOG.debug("the selected files of {} are in the cache at {}; no request made", ref, folder);
        long bytes = local.files().stream().mapToLong(RemoteFile::size).sum();
        Map<String, Long> listed =
                listedSizes(repo.readSnapshotRecord(local.commit()).orElse(List.of()));
        return Optional.of(
                new ResolvedModel(folder, ref, local.commit(), local.files().size(), bytes, 0, 0, false, listed));
    }

    /** As {@link #local(CacheRepo, RepoRef)} for the selected files of a recorded snapshot; no backend check. */
    private LocalState local(CacheRepo repo, RepoRef ref, FileSelection selection) {
        Optional<String> commit = ref.isCommit() ? Optional.of(ref.revision()) : repo.readRef(ref.revision());
        Optional<List<RemoteFile>> record = commit.flatMap(repo::readSnapshotRecord);
        if (record.isEmpty()) {
            return new LocalState(
                    commit.orElse(null),
                    List.of(),
                    List.of("no complete file list of " + ref + " is recorded in the cache " + repo.repoDir()));
        }
        CacheStore store = new CacheStore(repo, commit.get());
        Optional<KnownBundle> pinned = settings.knownBundles().find(ref.repo(), commit.get());
        List<RemoteFile> files =
                record.get().stream().filter(f -> selection.test(f.path())).toList();
        List<String> problems = new ArrayList<>();
        try {
            for (RemoteFile f : files) {
                KnownFile pin = pinned.map(k -> k.files().get(f.path())).orElse(null);
                store.problem(f, pin).ifPresent(p -> problems.add(f.path() + ": " + p));
            }
        } catch (IOException e) {
            problems.add("cannot read the cache: " + e.getMessage());
        }
        return new LocalState(commit.get(), files, problems);
    }

    ResolvedModel download(RepoRef ref, Path dir) {
        if (settings.offline()) {
            throw new HubException("offline mode (HF_HUB_OFFLINE or the offline option): cannot download " + ref
                    + " into " + dir.toAbsolutePath());
        }
        RepoListing listing = api().listing(ref);
        return fetchAll(ref, listing, new FolderStore(dir, listing.commit()), FileSelection.ALL);
    }

    /** Without any request: the commit (a commit id, or refs/), and every file of the snapshot verified. */
    LocalState local(CacheRepo repo, RepoRef ref) {
        Optional<String> commit = ref.isCommit() ? Optional.of(ref.revision()) : repo.readRef(ref.revision());
        if (commit.isEmpty()) {
            return new LocalState(
                    null,
                    List.of(),
                    List.of("no commit is recorded for revision '" + ref.revision() + "' ("
                            + repo.repoDir().resolve("refs").resolve(ref.revision()) + " is missing)"));
        }
        CacheStore store = new CacheStore(repo, commit.get());
        Path snapshot = store.folder();
        if (!Files.isDirectory(snapshot)) {
            return new LocalState(
                    commit.get(), List.of(), List.of("the snapshot folder " + snapshot + " does not exist"));
        }
        Optional<KnownBundle> pinned = settings.knownBundles().find(ref.repo(), commit.get());
        List<String> problems = new ArrayList<>();
        List<RemoteFile> files = repo.readSnapshotRecord(commit.get()).orElseGet(() -> walk(repo, snapshot, problems));
        try {
            for (RemoteFile f : files) {
                KnownFile pin = pinned.map(k -> k.files().get(f.path())).orElse(null);
                store.problem(f, pin).ifPresent(p -> problems.add(f.path() + ": " + p));
            }
        } catch (IOException e) {
            problems.add("cannot read the cache: " + e.getMessage());
        }
        if (pinned.isPresent()) {
            List<String> have = files.stream().map(RemoteFile::path).toList();
            pinned.get().files().keySet().stream()
                    .filter(p -> !have.contains(p))
                    .forEach(p -> problems.add(p + ": missing from the cache (pinned file)"));
        }
        if (problems.isEmpty()) {
            problems.addAll(settings.folderCheck().apply(snapshot));
        }
        return new LocalState(commit.get(), files, problems);
    }

    /**
     * The files of a snapshot not written by flux2-java (so without its file list): each must be a link to a blob
     * named by its ETag, which is then hashed once.
     */
    private static List<RemoteFile> walk(CacheRepo repo, Path snapshot, List<String> problems) {
        List<RemoteFile> files = new ArrayList<>();
        Path blobs;
        try (Stream<Path> s = Files.walk(snapshot)) {
            Path blobDir = repo.repoDir().resolve("blobs");
            blobs = Files.isDirectory(blobDir) ? blobDir.toRealPath() : null;
            for (Path p : s.filter(p -> !Files.isDirectory(p)).sorted().toList()) {
                String rel = snapshot.relativize(p).toString().replace('\\', '/');
                if (!RepoPaths.isBundleFile(rel)) {
                    continue;
                }
                if (Files.isSymbolicLink(p) && Files.exists(p) && blobs != null) {
                    Path target = p.toRealPath();
                    if (target.getParent().equals(blobs)) {
                        files.add(new RemoteFile(
                                rel, Files.size(target), target.getFileName().toString()));
                        continue;
                    }
                }
                problems.add(rel + ": not a link to a blob of " + repo.repoDir()
                        + " (cannot be verified without a request)");
            }
        } catch (IOException e) {
            problems.add("cannot read " + snapshot + ": " + e.getMessage());
        }
        if (files.isEmpty() && problems.isEmpty()) {
            problems.add("the snapshot folder " + snapshot + " holds no model file");
        }
        return files;
    }

    private ResolvedModel fetchAll(RepoRef ref, RepoListing listing, Store store, FileSelection selection) {
        String commit = listing.commit();
        List<RemoteFile> bundle = listing.bundleFiles();
        if (bundle.isEmpty()) {
            throw new HubException(ref + " (commit " + commit + ") has no model file (ONNX graphs, external data,"
                    + " JSON configs, tokenizer files); it lists: "
                    + listing.files().stream().map(RemoteFile::path).collect(Collectors.joining(", ")));
        }
        Optional<KnownBundle> pinned = settings.knownBundles().find(ref.repo(), commit);
        pinned.ifPresent(k -> checkAgainstPinned(ref, commit, bundle, k));
        List<RemoteFile> listed =
                bundle.stream().filter(f -> selection.test(f.path())).toList();
        if (listed.isEmpty()) {
            throw new HubException(
                    ref + " (commit " + commit + ") has none of the files " + selection + "; its model files: "
                            + summary(bundle.stream().map(RemoteFile::path).toList()));
        }
        HubApi api = api();
        List<RemoteFile> files = new ArrayList<>();
        for (RemoteFile f : listed) {
            files.add(f.described() ? f : api.describe(ref.repo(), commit, f));
        }
        try {
            // Recorded before any transfer: a run killed half-way leaves a snapshot that is known to be partial.
            // A selection records the whole model's list only when the listing describes every file (no request
            // is made for the others): the record is what a later resolution checks the snapshot against.
            if (selection == FileSelection.ALL) {
                store.expect(commit, files);
            } else if (bundle.stream().allMatch(RemoteFile::described)) {
                store.expect(commit, bundle);
            }
        } catch (IOException e) {
            throw new HubException("cannot record the file list in " + store.folder() + ": " + e.getMessage(), e);
        }
        Map<RemoteFile, KnownFile> pins = new LinkedHashMap<>();
        List<RemoteFile> missing = new ArrayList<>();
        try {
            for (RemoteFile f : files) {
                KnownFile pin = pinned.map(k -> k.files().get(f.path())).orElse(null);
                pins.put(f, pin);
                if (store.problem(f, pin).isPresent()) {
                    missing.add(f);
                } else {
                    settings.listener().fileReady(f.path(), f.size(), false);
                }
            }
        } catch (IOException e) {
            throw new HubException("cannot read " + store.folder() + ": " + e.getMessage(), e);
        }
        long downloaded = 0;
        int fetched = 0;
        if (!missing.isEmpty()) {
            long present = missing.stream()
                    .mapToLong(f -> sizeOrZero(store.incomplete(f)))
                    .sum();
            DownloadPlan plan = new DownloadPlan(
                    ref.repo(),
                    commit,
                    missing.stream().map(RemoteFile::path).toList(),
                    missing.stream().mapToLong(RemoteFile::size).sum(),
                    present);
            DiskSpace.check(ref, store.incomplete(missing.get(0)).getParent(), plan.totalBytes() - present);
            LOG.info(
                    "fetching {} files ({} bytes) of {} at {} into {}",
                    plan.fileCount(),
                    plan.totalBytes(),
                    ref,
                    commit,
                    store.folder());
            settings.listener().downloadPlanned(plan);
            ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "flux2-hub-watchdog");
                t.setDaemon(true);
                return t;
            });
            try {
                FileFetcher fetcher = new FileFetcher(http(), settings, settings.listener(), scheduler);
                for (RemoteFile f : missing) {
                    if (Thread.currentThread().isInterrupted()) {
                        throw new HubException("fetching " + ref + " was interrupted (cancelled) before " + f.path()
                                + "; files fetched so far are kept, run again to resume");
                    }
                    long bytes = fetchOne(ref, commit, store, fetcher, f, pins.get(f));
                    if (bytes >= 0) {
                        downloaded += bytes;
                        fetched++;
                    }
                }
            } finally {
                scheduler.shutdownNow();
            }
        }
        List<String> problems =
                selection == FileSelection.ALL ? settings.folderCheck().apply(store.folder()) : List.of();
        if (!problems.isEmpty()) {
            throw new HubException(ref + " (commit " + commit + ") was fetched and every file matches the hub, but "
                    + "the model folder " + store.folder() + " is not usable: " + summary(problems));
        }
        long total = files.stream().mapToLong(RemoteFile::size).sum();
        Map<String, Long> sizes =
                selection == FileSelection.ALL ? Map.of() : listedSizes(withSizes(ref, commit, bundle, files));
        return new ResolvedModel(store.folder(), ref, commit, files.size(), total, fetched, downloaded, true, sizes);
    }

    /**
     * The model's files with their sizes: a file the listing gives no size for is asked with {@code HEAD} (as for
     * a file fetched), so that a listing without sizes is not reported as missing shards.
     */
    private List<RemoteFile> withSizes(RepoRef ref, String commit, List<RemoteFile> bundle, List<RemoteFile> fetched) {
        Map<String, RemoteFile> described = new LinkedHashMap<>();
        fetched.forEach(f -> described.put(f.path(), f));
        HubApi api = null;
        List<RemoteFile> out = new ArrayList<>();
        for (RemoteFile f : bundle) {
            RemoteFile known = described.getOrDefault(f.path(), f);
            if (known.size() < 0) {
                api = api == null ? api() : api;
                known = api.describe(ref.repo(), commit, known);
            }
            out.add(known);
        }
        return out;
    }

    /** @return the size of each listed file whose size the listing gives, by repository path */
    private static Map<String, Long> listedSizes(List<RemoteFile> files) {
        Map<String, Long> sizes = new LinkedHashMap<>();
        for (RemoteFile f : files) {
            if (f.size() >= 0) {
                sizes.put(f.path(), f.size());
            }
        }
        return sizes;
    }

    /**
     * Fetches, verifies and installs one file under its lock; returns the bytes transferred, or -1 when another
     * thread or process installed it meanwhile.
     */
    private long fetchOne(RepoRef ref, String commit, Store store, FileFetcher fetcher, RemoteFile f, KnownFile pin) {
        String what = f.path() + " of " + ref.repo() + "@" + commit;
        try {
            return FileLocks.withLock(store.lockFile(f), () -> {
                if (store.problem(f, pin).isEmpty()) {
                    // Another thread or process installed it while this one waited for the lock.
                    settings.listener().fileReady(f.path(), f.size(), false);
                    return -1L;
                }
                Path part = store.incomplete(f);
                long resumedFrom = fetcher.fetch(ref.repo(), commit, f, part);
                ContentCheck.Outcome outcome = ContentCheck.check(part, f.size(), f.etag(), pin);
                if (!outcome.ok()) {
                    Files.deleteIfExists(part);
                    throw new HubException(what + ": " + outcome.describe()
                            + " (the bad transfer was deleted; run again to fetch it anew)");
                }
                store.install(f, part, outcome);
                settings.listener().fileReady(f.path(), f.size(), true);
                return f.size() - resumedFrom;
            });
        } catch (IOException e) {
            if (NetFailure.cancellation(e)) {
                Thread.currentThread().interrupt();
                throw new HubException(
                        "fetching " + what + " was interrupted (cancelled) while waiting for its lock", e);
            }
            throw new HubException("cannot store " + what + " in " + store.folder() + ": " + e.getMessage(), e);
        }
    }

    private static void checkAgainstPinned(RepoRef ref, String commit, List<RemoteFile> listed, KnownBundle pinned) {
        Map<String, RemoteFile> byPath = new LinkedHashMap<>();
        listed.forEach(f -> byPath.put(f.path(), f));
        pinned.files().forEach((path, pin) -> {
            RemoteFile f = byPath.get(path);
            if (f == null) {
                throw new HubException(path + " is in the pinned file list of " + ref.repo() + "@" + commit
                        + " but the hub does not list it");
            }
            if (f.size() >= 0 && f.size() != pin.bytes()) {
                throw new HubException(path + " of " + ref.repo() + "@" + commit + ": the hub lists " + f.size()
                        + " bytes, the pinned list " + pin.bytes());
            }
        });
    }

    static String summary(List<String> problems) {
        String shown = problems.stream().limit(PROBLEMS_SHOWN).collect(Collectors.joining("; "));
        return problems.size() > PROBLEMS_SHOWN
                ? shown + "; and " + (problems.size() - PROBLEMS_SHOWN) + " more"
                : shown;
    }

    private static long sizeOrZero(Path p) {
        try {
            return Files.isRegularFile(p) ? Files.size(p) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    private synchronized HubHttp http() {
        if (http == null) {
            http = new HubHttp(
                    settings.endpoint(),
                    settings.token(),
                    settings.basicAuth(),
                    settings.connectTimeout(),
                    settings.responseTimeout());
        }
        return http;
    }

    private HubApi api() {
        return new HubApi(http(), settings);
    }
}
