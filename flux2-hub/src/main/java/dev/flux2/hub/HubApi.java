package dev.flux2.hub;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The two metadata requests: the file list of a revision ({@code HfApi.model_info}, as {@code snapshot_download}
 * uses it) and, for a file the list does not describe fully, {@code HEAD} on its resolve URL
 * ({@code get_hf_file_metadata}). Both retry a few times on network errors and on 408/429/5xx, waiting what a
 * {@code Retry-After} asks (up to {@link HubSettings#maxRetryAfter()}). The file list's body is read under the
 * stall timeout and the metadata time limit, and parsed within {@link ListingParser}'s limits. A thread interrupt
 * stops it at once.
 */
final class HubApi {
    private static final int ATTEMPTS = 3;

    private final HubHttp http;
    private final HubSettings settings;
    private final Sleeper sleeper;

    /** Waits between attempts (tests pass a no-op). */
    @FunctionalInterface
    interface Sleeper {
        void sleep(long millis) throws InterruptedException;
    }

    HubApi(HubHttp http, HubSettings settings) {
        this.http = http;
        this.settings = settings;
        this.sleeper = settings.sleeper();
    }

    /**
     * @param ref repository and revision
     * @return the commit and every file, with size and ETag where the hub gives them
     * @throws HubException when the hub refuses or cannot be reached, or its answer is not a file list within
     *     the limits
     */
    RepoListing listing(RepoRef ref) {
        URI url = http.modelInfoUrl(ref.repo(), ref.revision());
        String shown = Redact.url(url);
        String what = "the file list of " + ref;
        long deadline = System.nanoTime() + settings.metadataTimeout().toNanos();
        ListingParser.Parsed root = withRetries(what, url, deadline, () -> {
            HubHttp.Exchange ex = http.send("GET", url, null, true, left(what, deadline));
            int status = ex.response().statusCode();
            try (InputStream body = new InterruptibleBody(ex.response().body())) {
                if (HubHttp.retryable(status)) {
                    throw HubHttp.retry(status, ex.response().headers(), ex.url());
                }
                if (status != 200) {
                    throw http.refused(what, status, ex.response().headers(), url);
                }
                String type = ex.response().headers().firstValue("Content-Type").orElse("");
                ScheduledExecutorService scheduler = watchdogThread();
                try (StallWatchdog watchdog = new StallWatchdog(scheduler, settings.stallTimeout(), deadline, body)) {
                    try {
                        return ListingParser.parse(body, what, shown, type, watchdog::progress);
                    } catch (IOException e) {
                        String why = watchdog.reason();
                        if (why != null) {
                            throw new IOException("reading the answer from " + shown + " stopped: " + why
                                    + (why.startsWith("the time") ? " (" + settings.metadataTimeout() + ")" : ""));
                        }
                        throw e;
                    }
                } finally {
                    scheduler.shutdownNow();
                }
            }
        });
        String sha = root.sha();
        if (!RepoRef.isCommitId(sha)) {
            throw new HubException(what + " from " + shown + " has no commit id ('sha'), found '"
                    + ListingParser.sanitize(sha) + "': is " + Redact.url(http.endpoint()) + " a Hugging Face hub?");
        }
        return new RepoListing(sha, root.files());
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
        long deadline = System.nanoTime() + settings.metadataTimeout().toNanos();
        return withRetries(what, url, deadline, () -> {
            HubHttp.Exchange ex = http.send("HEAD", url, null, false, left(what, deadline));
            int status = ex.response().statusCode();
            if (HubHttp.retryable(status)) {
                throw HubHttp.retry(status, ex.response().headers(), ex.url());
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
                throw new HubException(what + ": the answer from " + Redact.url(url) + " has no ETag or size ("
                        + "ETag " + etag + ", size " + size + "); cannot verify it");
            }
            return file.with(size, etag);
        });
    }

    private static ScheduledExecutorService watchdogThread() {
        return Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "flux2-hub-watchdog");
            t.setDaemon(true);
            return t;
        });
    }

    private interface Call<T> {
        T run() throws IOException, InterruptedException;
    }

    /** What is left of a metadata call's total time, or a refusal once it is spent. */
    private Duration left(String what, long deadline) throws IOException {
        long nanos = deadline - System.nanoTime();
        if (nanos <= 0) {
            throw new TimeLimit(what, settings.metadataTimeout());
        }
        return Duration.ofNanos(nanos);
    }

    /** The total time limit of one metadata call, retries and waits included, was reached. */
    private static final class TimeLimit extends IOException {
        private static final long serialVersionUID = 1L;

        TimeLimit(String what, Duration limit) {
            super("the total time limit of " + limit.toSeconds() + " s for " + what
                    + " (retries included; metadataTimeout) was reached");
        }
    }

    private <T> T withRetries(String what, URI url, long deadline, Call<T> call) {
        IOException last = null;
        int attempts = 0;
        boolean outOfTime = false;
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            try {
                if (attempt > 1) {
                    left(what, deadline);
                }
                attempts++;
                return call.run();
            } catch (TimeLimit e) {
                // No time is left for another attempt: the last attempt's own failure says what happened.
                last = last == null ? e : last;
                outOfTime = true;
                break;
            } catch (IOException e) {
                if (NetFailure.cancellation(e)) {
                    Thread.currentThread().interrupt();
                    throw cancelled(what, e);
                }
                last = e;
                if (attempt < ATTEMPTS) {
                    long wait = wait(what, e, 500L * attempt);
                    if (wait >= (deadline - System.nanoTime()) / 1_000_000) {
                        // The wait would outlast the total time limit: no attempt could follow it.
                        outOfTime = true;
                        break;
                    }
                    try {
                        sleeper.sleep(wait);
                    } catch (InterruptedException ie) {
                        Thread.currentThread().interrupt();
                        throw cancelled(what, ie);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw cancelled(what, e);
            }
        }
        String failure = last instanceof TimeLimit ? last.getMessage() : NetFailure.describe(url, last);
        throw new HubException(
                "cannot fetch " + what + " from " + Redact.url(url) + " after " + attempts + " attempt"
                        + (attempts == 1 ? "" : "s") + ": " + failure
                        + (outOfTime && !(last instanceof TimeLimit)
                                ? "; the total time limit of "
                                        + settings.metadataTimeout().toSeconds()
                                        + " s (retries included; metadataTimeout) leaves no time for another attempt"
                                : "")
                        + (NetFailure.unreachable(last) ? "; " + NetFailure.WAY_FORWARD : ""),
                last);
    }

    /** The back-off, or the server's {@code Retry-After} when longer; refuses one beyond the limit. */
    private long wait(String what, IOException e, long backoff) {
        if (!(e instanceof HubHttp.RetryableStatus r) || r.retryAfter().isEmpty()) {
            return backoff;
        }
        Duration asked = r.retryAfter().get();
        if (asked.compareTo(settings.maxRetryAfter()) > 0) {
            throw new HubException("cannot fetch " + what + ": " + e.getMessage() + ": the hub asks to wait "
                    + asked.toSeconds() + " s before trying again, more than the "
                    + settings.maxRetryAfter().toSeconds()
                    + " s allowed (maxRetryAfter); try again later");
        }
        return Math.max(backoff, asked.toMillis());
    }

    static HubException cancelled(String what, Throwable cause) {
        return new HubException("fetching " + what + " was interrupted (cancelled)", cause);
    }
}
