package dev.flux2.hub;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/**
 * The two metadata requests: the file list of a revision ({@code HfApi.model_info}, as {@code snapshot_download}
 * uses it) and, for a file the list does not describe fully, {@code HEAD} on its resolve URL
 * ({@code get_hf_file_metadata}). Both retry a few times on network errors and on 408/429/5xx.
 */
final class HubApi {
    private static final int ATTEMPTS = 3;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HubHttp http;
    private final Sleeper sleeper;

    /** Waits between attempts (tests pass a no-op). */
    @FunctionalInterface
    interface Sleeper {
        void sleep(long millis) throws InterruptedException;
    }

    HubApi(HubHttp http, Sleeper sleeper) {
        this.http = http;
        this.sleeper = sleeper;
    }

    /**
     * @param ref repository and revision
     * @return the commit and every file, with size and ETag where the hub gives them
     * @throws HubException when the hub refuses or cannot be reached
     */
    RepoListing listing(RepoRef ref) {
        URI url = http.modelInfoUrl(ref.repo(), ref.revision());
        String what = "the file list of " + ref;
        JsonNode root = withRetries(what, url, () -> {
            HubHttp.Exchange ex = http.send("GET", url, null, true);
            int status = ex.response().statusCode();
            try (InputStream body = ex.response().body()) {
                if (status == 200) {
                    return JSON.readTree(body);
                }
                if (HubHttp.retryable(status)) {
                    throw new IOException("HTTP " + status);
                }
                throw http.refused(what, status, ex.response().headers(), url);
            }
        });
        String sha = root.path("sha").asText("");
        if (!RepoRef.isCommitId(sha)) {
            throw new HubException(what + " from " + url + " has no commit id ('sha'), found '" + sha + "': is "
                    + http.endpoint() + " a Hugging Face hub?");
        }
        List<RemoteFile> files = new ArrayList<>();
        for (JsonNode s : root.path("siblings")) {
            String name = s.path("rfilename").asText(null);
            if (name == null) {
                continue;
            }
            JsonNode lfs = s.path("lfs");
            long size = s.path("size").canConvertToLong() ? s.path("size").asLong() : -1;
            String etag;
            if (lfs.isObject() && lfs.hasNonNull("sha256")) {
                etag = lfs.get("sha256").asText();
                if (lfs.path("size").canConvertToLong()) {
                    size = lfs.get("size").asLong();
                }
            } else {
                etag = s.hasNonNull("blobId") ? s.get("blobId").asText() : null;
            }
            files.add(new RemoteFile(name, size, etag));
        }
        return new RepoListing(sha, files);
    }

    /**
     * {@code HEAD} on the resolve URL, following relative redirects only (as
     * {@code _httpx_follow_relative_redirects_with_backoff}): {@code X-Repo-Commit}, the ETag and the size
     * ({@code X-Linked-Size}, else {@code Content-Length} of a non-redirect answer).
     *
     * @param repo repository id
     * @param commit the commit
     * @param file the file, possibly without size or ETag
     * @return the file with both
     * @throws HubException when the hub refuses or the answer lacks them
     */
    RemoteFile describe(String repo, String commit, RemoteFile file) {
        URI url = http.resolveUrl(repo, commit, file.path());
        String what = file.path() + " of " + repo + "@" + commit;
        return withRetries(what, url, () -> {
            HubHttp.Exchange ex = http.send("HEAD", url, null, false);
            int status = ex.response().statusCode();
            if (HubHttp.retryable(status)) {
                throw new IOException("HTTP " + status);
            }
            if (status >= 400) {
                throw http.refused(what, status, ex.response().headers(), url);
            }
            String etag = HubHttp.etagOf(ex.first());
            boolean redirect = status >= 300;
            long size = ex.first()
                    .firstValueAsLong(HubHttp.X_LINKED_SIZE)
                    .orElse(
                            redirect
                                    ? -1
                                    : ex.first()
                                            .firstValueAsLong("Content-Length")
                                            .orElse(-1));
            if (etag == null || size < 0) {
                throw new HubException(what + ": the answer from " + url + " has no ETag or size (" + "ETag " + etag
                        + ", size " + size + "); cannot verify it");
            }
            return file.with(size, etag);
        });
    }

    private interface Call<T> {
        T run() throws IOException, InterruptedException;
    }

    private <T> T withRetries(String what, URI url, Call<T> call) {
        IOException last = null;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            try {
                return call.run();
            } catch (IOException e) {
                last = e;
                if (attempt < ATTEMPTS) {
                    try {
                        sleeper.sleep(500L * attempt);
                    } catch (InterruptedException ie) {
                        Thread.currentThread().interrupt();
                        throw new HubException("interrupted while fetching " + what, ie);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new HubException("interrupted while fetching " + what, e);
            }
        }
        throw new HubException(
                "cannot fetch " + what + " from " + url + " after " + ATTEMPTS + " attempts: " + last, last);
    }
}
