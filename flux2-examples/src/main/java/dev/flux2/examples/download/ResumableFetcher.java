package dev.flux2.examples.download;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fetches one file over HTTP into {@code <file>.part}, resuming an earlier partial transfer with a {@code Range}
 * request, checks the result and renames it atomically into place. A file therefore exists under its final name
 * only when it is complete and verified.
 */
final class ResumableFetcher {
    private static final Logger LOG = LoggerFactory.getLogger(ResumableFetcher.class);
    private static final Pattern CONTENT_RANGE = Pattern.compile("bytes\\s+(\\d+)-(\\d+)/(\\d+|\\*)");
    private static final Pattern UNSATISFIED_RANGE = Pattern.compile("bytes\\s+\\*/(\\d+)");
    private static final int BUFFER = 1 << 16;

    private final HttpClient client;
    private final DownloadOptions options;
    private final DownloadListener listener;
    private final ScheduledExecutorService scheduler;

    /** Checks a completed {@code .part} file before it is renamed into place. */
    @FunctionalInterface
    interface PartCheck {
        /** Accepts every file. */
        PartCheck NONE = part -> {};

        /**
         * @param part the completed transfer
         * @throws DownloadException when the content is not what was expected
         * @throws IOException when the file cannot be read
         */
        void check(Path part) throws IOException;
    }

    /**
     * One file's transfer.
     *
     * @param path the file's path in the repository
     * @param url where it is fetched from
     * @param target where it goes once complete and checked
     * @param part where the bytes accumulate until then
     * @param check what the completed content must satisfy
     */
    private record Transfer(String path, URI url, Path target, Path part, PartCheck check) {}

    /** A transfer that stopped early and may be resumed. */
    private static final class TransferInterrupted extends Exception {
        private static final long serialVersionUID = 1L;

        TransferInterrupted(String message, Throwable cause) {
            super(message, cause);
        }
    }

    ResumableFetcher(
            HttpClient client, DownloadOptions options, DownloadListener listener, ScheduledExecutorService scheduler) {
        this.client = client;
        this.options = options;
        this.listener = listener;
        this.scheduler = scheduler;
    }

    /**
     * Fetches a file unless it is already complete.
     *
     * @param path the file's path in the repository
     * @param target where it goes
     * @param check what the completed content must satisfy
     * @return the outcome, or empty when the server answered 404
     * @throws DownloadException when the transfer fails after every retry or the check fails
     */
    Optional<DownloadedFile> fetch(String path, Path target, PartCheck check) {
        Transfer t = new Transfer(
                path, options.resolveUrl(path), target, target.resolveSibling(target.getFileName() + ".part"), check);
        for (int attempt = 0; ; attempt++) {
            try {
                return attempt(t);
            } catch (TransferInterrupted e) {
                long have = sizeOrZero(t.part());
                if (attempt >= options.retries()) {
                    throw new DownloadException(
                            e.getMessage() + "; " + have + " bytes are kept in " + t.part()
                                    + ", run the download again to resume",
                            e.getCause());
                }
                LOG.warn(
                        "{}; retrying from byte {} ({} of {} retries)",
                        e.getMessage(),
                        have,
                        attempt + 1,
                        options.retries());
                pause(attempt + 1);
            }
        }
    }

    private Optional<DownloadedFile> attempt(Transfer t) throws TransferInterrupted {
        long offset = sizeOrZero(t.part());
        HttpRequest.Builder rb = HttpRequest.newBuilder(t.url())
                .timeout(options.responseTimeout())
                .GET()
                .header("User-Agent", "flux2-java-downloader");
        if (offset > 0) {
            rb.header("Range", "bytes=" + offset + "-");
        }
        HttpResponse<InputStream> response;
        try {
            response = client.send(rb.build(), HttpResponse.BodyHandlers.ofInputStream());
        } catch (IOException e) {
            throw new TransferInterrupted("request for " + t.url() + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DownloadException("download of " + t.path() + " was interrupted", e);
        }
        try (InputStream body = response.body()) {
            int status = response.statusCode();
            long total;
            boolean append;
            switch (status) {
                case 200 -> {
                    append = false;
                    total = response.headers()
                            .firstValueAsLong("Content-Length")
                            .orElse(-1);
                    if (offset > 0) {
                        LOG.info("{}: server ignored the range request, fetching from the start", t.path());
                    }
                    offset = 0;
                }
                case 206 -> {
                    append = true;
                    total = checkContentRange(response, offset, t.url());
                }
                case 404 -> {
                    return Optional.empty();
                }
                case 416 -> {
                    return Optional.of(rangeNotSatisfiable(response, t, offset));
                }
                case 401, 403 ->
                    throw new DownloadException("access to " + t.url() + " was refused (HTTP " + status
                            + "): the repository may not exist, or be private or gated (this downloader sends no"
                            + " token)");
                case 429, 500, 502, 503, 504 ->
                    throw new TransferInterrupted("server answered HTTP " + status + " for " + t.url(), null);
                default -> throw new DownloadException("unexpected HTTP " + status + " for " + t.url());
            }
            listener.transferStarted(t.path(), offset, total);
            copy(t, body, append, offset);
            long have = sizeOrZero(t.part());
            if (total >= 0 && have != total) {
                throw new TransferInterrupted(
                        "transfer of " + t.path() + " ended after " + have + " of " + total + " bytes", null);
            }
            return Optional.of(finish(t, offset));
        } catch (IOException e) {
            throw new DownloadException("cannot write " + t.part() + ": " + e.getMessage(), e);
        }
    }

    private long checkContentRange(HttpResponse<?> response, long offset, URI url) {
        String header = response.headers().firstValue("Content-Range").orElse("");
        Matcher m = CONTENT_RANGE.matcher(header);
        if (!m.matches() || Long.parseLong(m.group(1)) != offset) {
            throw new DownloadException("server answered a request for bytes " + offset + "- of " + url
                    + " with Content-Range '" + header + "' (expected a range starting at " + offset + ")");
        }
        return "*".equals(m.group(3)) ? -1 : Long.parseLong(m.group(3));
    }

    private DownloadedFile rangeNotSatisfiable(HttpResponse<?> response, Transfer t, long offset)
            throws TransferInterrupted, IOException {
        Matcher m = UNSATISFIED_RANGE.matcher(
                response.headers().firstValue("Content-Range").orElse(""));
        if (m.matches() && Long.parseLong(m.group(1)) == offset) {
            // An earlier run received every byte but stopped before the rename.
            return finish(t, offset);
        }
        Files.deleteIfExists(t.part());
        throw new TransferInterrupted(
                "server rejected resuming " + t.path() + " at byte " + offset
                        + " (HTTP 416, the remote file changed size); starting again from the beginning",
                null);
    }

    private void copy(Transfer t, InputStream body, boolean append, long offset)
            throws TransferInterrupted, IOException {
        StandardOpenOption mode = append ? StandardOpenOption.APPEND : StandardOpenOption.TRUNCATE_EXISTING;
        long written = offset;
        try (OutputStream out =
                        Files.newOutputStream(t.part(), StandardOpenOption.CREATE, StandardOpenOption.WRITE, mode);
                StallWatchdog watchdog = new StallWatchdog(scheduler, options.stallTimeout(), body)) {
            byte[] buf = new byte[BUFFER];
            try {
                int n;
                while ((n = body.read(buf)) >= 0) {
                    out.write(buf, 0, n);
                    written += n;
                    watchdog.progress();
                    listener.transferProgress(t.path(), written);
                }
            } catch (IOException e) {
                out.flush();
                String why = watchdog.fired()
                        ? "no data arrived for " + options.stallTimeout().toMillis() + " ms"
                        : e.toString();
                throw new TransferInterrupted(
                        "transfer of " + t.path() + " interrupted after " + written + " bytes: " + why, e);
            }
        }
    }

    private DownloadedFile finish(Transfer t, long resumedFrom) throws IOException {
        t.check().check(t.part());
        long size = Files.size(t.part());
        Files.move(t.part(), t.target(), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        DownloadedFile done = new DownloadedFile(t.path(), DownloadedFile.Outcome.DOWNLOADED, size, resumedFrom);
        listener.fileDone(done);
        return done;
    }

    private static long sizeOrZero(Path file) {
        try {
            return Files.exists(file) ? Files.size(file) : 0;
        } catch (IOException e) {
            throw new DownloadException("cannot read the size of " + file + ": " + e.getMessage(), e);
        }
    }

    private static void pause(int attempt) {
        try {
            Thread.sleep(Math.min(5000L, 500L * attempt));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DownloadException("download interrupted while waiting to retry", e);
        }
    }
}
