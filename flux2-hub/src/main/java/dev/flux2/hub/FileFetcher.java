package dev.flux2.hub;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Transfers one file's bytes into its {@code .incomplete} file: {@code GET} on the resolve URL at the commit
 * (redirects to the CDN followed, the token dropped off the endpoint's origin), resuming with {@code Range} from
 * what an earlier transfer left, aborting a stalled transfer ({@link StallWatchdog}) and retrying a bounded number
 * of times within a bounded total time. Checks what the headers promise (ETag, size, not an HTML page) before it
 * writes; the content itself is checked by the caller before the file is moved into place.
 */
final class FileFetcher {
    private static final Logger LOG = LoggerFactory.getLogger(FileFetcher.class);
    private static final Pattern CONTENT_RANGE = Pattern.compile("bytes\\s+(\\d+)-(\\d+)/(\\d+|\\*)");
    private static final Pattern UNSATISFIED_RANGE = Pattern.compile("bytes\\s+\\*/(\\d+)");
    private static final int BUFFER = 1 << 16;

    private final HubHttp http;
    private final HubSettings settings;
    private final DownloadListener listener;
    private final ScheduledExecutorService scheduler;

    /** A transfer that stopped early and may be resumed. */
    private static final class Interrupted extends Exception {
        private static final long serialVersionUID = 1L;
        private final transient Optional<Duration> retryAfter;

        Interrupted(String message, Throwable cause) {
            this(message, cause, Optional.empty());
        }

        Interrupted(String message, Throwable cause, Optional<Duration> retryAfter) {
            super(message, cause);
            this.retryAfter = retryAfter;
        }
    }

    FileFetcher(HubHttp http, HubSettings settings, DownloadListener listener, ScheduledExecutorService scheduler) {
        this.http = http;
        this.settings = settings;
        this.listener = listener;
        this.scheduler = scheduler;
    }

    /**
     * Completes {@code part} to the file's full size.
     *
     * @param repo repository id
     * @param commit the commit
     * @param file the file (size and ETag known)
     * @param part its {@code .incomplete} file
     * @return the offset the transfer resumed from (0 for a fresh transfer)
     * @throws HubException when the transfer fails after every retry or the answer is not the file
     */
    long fetch(String repo, String commit, RemoteFile file, Path part) {
        URI url = http.resolveUrl(repo, commit, file.path());
        long deadline = System.nanoTime() + settings.maxFileTime().toNanos();
        long resumedFrom = sizeOrZero(part);
        for (int attempt = 0; ; attempt++) {
            try {
                attempt(repo, commit, file, part, url, deadline);
                return resumedFrom;
            } catch (Interrupted e) {
                if (Thread.currentThread().isInterrupted()) {
                    throw cancelled(file.path(), part, file, e);
                }
                long have = sizeOrZero(part);
                boolean late = System.nanoTime() - deadline > 0;
                if (attempt >= settings.retries() || late) {
                    throw new HubException(
                            e.getMessage() + (late ? "; gave up after " + settings.maxFileTime() : "") + "; " + have
                                    + " of " + file.size() + " bytes are kept in " + part
                                    + ", run again to resume",
                            e.getCause());
                }
                long wait = Math.min(5000L, 500L * (attempt + 1));
                if (e.retryAfter.isPresent()) {
                    Duration asked = e.retryAfter.get();
                    if (asked.compareTo(settings.maxRetryAfter()) > 0) {
                        throw new HubException(e.getMessage() + ": the server asks to wait " + asked.toSeconds()
                                + " s before trying again, more than the "
                                + settings.maxRetryAfter().toSeconds()
                                + " s allowed (maxRetryAfter); " + have + " of " + file.size() + " bytes are kept in "
                                + part + ", run again later to resume");
                    }
                    wait = Math.max(wait, asked.toMillis());
                }
                LOG.warn(
                        "{}; retrying from byte {} in {} ms ({} of {} retries)",
                        e.getMessage(),
                        have,
                        wait,
                        attempt + 1,
                        settings.retries());
                pause(wait, file, part);
            }
        }
    }

    private void attempt(String repo, String commit, RemoteFile file, Path part, URI url, long deadline)
            throws Interrupted {
        String what = file.path() + " of " + repo + "@" + commit;
        long offset = sizeOrZero(part);
        if (offset > file.size()) {
            delete(part);
            offset = 0;
        }
        if (offset == file.size() && offset > 0) {
            return; // every byte arrived before an earlier run stopped
        }
        HubHttp.Exchange ex;
        try {
            ex = http.send("GET", url, offset > 0 ? "bytes=" + offset + "-" : null, true);
        } catch (IOException e) {
            if (NetFailure.cancellation(e)) {
                throw cancelled(what, part, file, e);
            }
            throw new Interrupted("request for " + Redact.url(url) + " failed: " + NetFailure.describe(url, e), e);
        } catch (InterruptedException e) {
            throw cancelled(what, part, file, e);
        }
        try (InputStream body = new InterruptibleBody(ex.response().body())) {
            checkHubHeaders(what, file, commit, ex);
            int status = ex.response().statusCode();
            boolean append;
            long total;
            switch (status) {
                case 200 -> {
                    append = false;
                    if (offset > 0) {
                        LOG.info("{}: the server ignored the range request; fetching from the start", what);
                    }
                    offset = 0;
                    total = ex.response()
                            .headers()
                            .firstValueAsLong("Content-Length")
                            .orElse(-1);
                }
                case 206 -> {
                    append = true;
                    total = contentRangeTotal(what, ex, offset);
                }
                case 416 -> {
                    Matcher m = UNSATISFIED_RANGE.matcher(
                            ex.response().headers().firstValue("Content-Range").orElse(""));
                    if (m.matches() && Long.parseLong(m.group(1)) == offset) {
                        return;
                    }
                    delete(part);
                    throw new Interrupted(
                            "the server refused to resume " + what + " at byte " + offset
                                    + " (HTTP 416); starting again from the beginning",
                            null);
                }
                default -> {
                    if (HubHttp.retryable(status)) {
                        throw new Interrupted(
                                "the server answered HTTP " + status + " for " + Redact.url(ex.url()),
                                null,
                                RetryAfter.of(ex.response().headers(), java.time.Instant.now()));
                    }
                    throw http.refused(what, status, ex.response().headers(), ex.url());
                }
            }
            String type = ex.response().headers().firstValue("Content-Type").orElse("");
            if (type.toLowerCase(Locale.ROOT).startsWith("text/html")) {
                delete(part);
                throw new HubException(what + ": " + Redact.url(ex.url()) + " answered with an HTML page (Content-Type "
                        + type
                        + ") instead of the file's " + file.size() + " bytes; nothing was kept (a proxy or login"
                        + " page?)");
            }
            if (total >= 0 && total != file.size()) {
                delete(part);
                throw new HubException(what + ": the server sends " + total + " bytes, the hub lists " + file.size()
                        + " (ETag " + file.etag() + "); nothing was kept, run again to fetch it anew");
            }
            listener.transferStarted(file.path(), offset, file.size());
            copy(what, file, body, part, append, offset, deadline);
        } catch (IOException e) {
            if (NetFailure.cancellation(e)) {
                throw cancelled(what, part, file, e);
            }
            throw new HubException("cannot write " + part + ": " + e.getMessage(), e);
        }
        long have = sizeOrZero(part);
        if (have < file.size()) {
            throw new Interrupted(
                    "transfer of " + what + " ended after " + have + " of " + file.size() + " bytes", null);
        }
        if (have > file.size()) {
            delete(part);
            throw new HubException(what + ": received " + have + " bytes, expected " + file.size()
                    + "; nothing was kept, run again to fetch it anew");
        }
    }

    /** The hub's own headers (before the CDN redirect) must describe the file the listing named. */
    private static void checkHubHeaders(String what, RemoteFile file, String commit, HubHttp.Exchange ex) {
        if (ex.response().statusCode() >= 400) {
            return;
        }
        String etag = HubHttp.etagOf(ex.first());
        String servedCommit = ex.first().firstValue(HubHttp.X_REPO_COMMIT).orElse(null);
        if (servedCommit != null && !servedCommit.equalsIgnoreCase(commit)) {
            throw new HubException(what + ": the hub served commit " + servedCommit + " instead of " + commit);
        }
        if (etag != null
                && !etag.equalsIgnoreCase(file.etag())
                && ex.first().firstValue(HubHttp.X_LINKED_ETAG).isPresent()) {
            throw new HubException(what + ": the hub's ETag is " + etag + ", its file list says " + file.etag());
        }
    }

    private static long contentRangeTotal(String what, HubHttp.Exchange ex, long offset) {
        String header = ex.response().headers().firstValue("Content-Range").orElse("");
        Matcher m = CONTENT_RANGE.matcher(header);
        if (!m.matches() || Long.parseLong(m.group(1)) != offset) {
            throw new HubException(what + ": the server answered a request for bytes " + offset + "- of "
                    + Redact.url(ex.url())
                    + " with Content-Range '" + header + "' (expected a range starting at " + offset + ")");
        }
        return "*".equals(m.group(3)) ? -1 : Long.parseLong(m.group(3));
    }

    private void copy(
            String what, RemoteFile file, InputStream body, Path part, boolean append, long offset, long deadline)
            throws Interrupted, IOException {
        Files.createDirectories(part.getParent());
        StandardOpenOption mode = append ? StandardOpenOption.APPEND : StandardOpenOption.TRUNCATE_EXISTING;
        long written = offset;
        Duration stall = settings.stallTimeout();
        try (OutputStream out = Files.newOutputStream(part, StandardOpenOption.CREATE, StandardOpenOption.WRITE, mode);
                StallWatchdog watchdog = new StallWatchdog(scheduler, stall, deadline, body)) {
            byte[] buf = new byte[BUFFER];
            try {
                int n;
                while ((n = body.read(buf)) >= 0) {
                    out.write(buf, 0, n);
                    written += n;
                    watchdog.progress();
                    listener.transferProgress(file.path(), written);
                    if (written > file.size()) {
                        break;
                    }
                    if (System.nanoTime() - deadline > 0) {
                        throw new IOException("time limit per file reached");
                    }
                }
            } catch (IOException e) {
                String why = watchdog.reason();
                if (why == null && (watchdog.cancelled() || NetFailure.cancellation(e))) {
                    throw cancelled(what, part, file, e);
                }
                flushQuietly(out);
                throw new Interrupted(
                        "transfer of " + what + " interrupted after " + written + " bytes: "
                                + (why != null ? why : Redact.text(e.toString())),
                        e);
            }
        }
    }

    private static long sizeOrZero(Path file) {
        try {
            return Files.exists(file) ? Files.size(file) : 0;
        } catch (IOException e) {
            throw new HubException("cannot read the size of " + file + ": " + e.getMessage(), e);
        }
    }

    private static void delete(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new HubException("cannot delete " + file + ": " + e.getMessage(), e);
        }
    }

    private void pause(long millis, RemoteFile file, Path part) {
        try {
            settings.sleeper().sleep(millis);
        } catch (InterruptedException e) {
            throw cancelled(file.path() + " (waiting to retry)", part, file, e);
        }
    }

    private static void flushQuietly(OutputStream out) {
        try {
            out.flush();
        } catch (IOException e) {
            LOG.debug("flushing a partial transfer failed", e);
        }
    }

    /**
     * A cancellation (the thread's interrupt: Ctrl-C in the CLI, a cancelled generation, an executor shut down):
     * stops at once, keeping what arrived for the next run, and leaves the interrupt flag set for the caller.
     */
    private static HubException cancelled(String what, Path part, RemoteFile file, Throwable cause) {
        Thread.currentThread().interrupt();
        return new HubException(
                "download of " + what + " was interrupted (cancelled); " + sizeOrZero(part) + " of " + file.size()
                        + " bytes are kept in " + part + ", run again to resume",
                cause);
    }
}
