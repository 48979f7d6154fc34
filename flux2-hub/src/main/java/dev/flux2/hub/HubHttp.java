package dev.flux2.hub;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The hub's HTTP conventions on the JDK client: {@code {endpoint}/{repo}/resolve/{revision}/{path}} URLs quoted
 * as {@code file_download.hf_hub_url} does, {@code Accept-Encoding: identity} (so sizes are real sizes, as
 * {@code get_hf_file_metadata} asks), {@code Authorization: Bearer} sent to the endpoint's origin only (dropped
 * when a redirect leaves it, as {@code _get_metadata_or_catch_error} drops it for the CDN), redirects followed by
 * hand, errors turned into {@link HubException}s that name the URL (never the token).
 */
final class HubHttp {
    /** {@code constants.HUGGINGFACE_HEADER_X_REPO_COMMIT}. */
    static final String X_REPO_COMMIT = "X-Repo-Commit";
    /** {@code constants.HUGGINGFACE_HEADER_X_LINKED_ETAG}. */
    static final String X_LINKED_ETAG = "X-Linked-Etag";
    /** {@code constants.HUGGINGFACE_HEADER_X_LINKED_SIZE}. */
    static final String X_LINKED_SIZE = "X-Linked-Size";

    private static final int MAX_REDIRECTS = 10;
    private static final Set<Integer> RETRYABLE = Set.of(408, 429, 500, 502, 503, 504);

    private final HttpClient client;
    private final URI endpoint;
    private final Optional<String> token;
    private final Optional<String> basicAuth;
    private final Duration responseTimeout;
    private final String userAgent;

    /**
     * One answered request, after redirects.
     *
     * @param first the headers of the first answer (the hub's, before any redirect to the CDN)
     * @param response the final answer; its body is null for a HEAD request
     * @param url the URL that gave the final answer
     */
    record Exchange(HttpHeaders first, HttpResponse<InputStream> response, URI url) {}

    /**
     * An answer worth retrying (408, 429, 5xx), with the wait the server asked for.
     */
    static final class RetryableStatus extends IOException {
        private static final long serialVersionUID = 1L;
        private final transient Optional<Duration> retryAfter;

        RetryableStatus(int status, URI url, Optional<Duration> retryAfter) {
            super("HTTP " + status + " from " + Redact.url(url)
                    + retryAfter
                            .map(d -> " (Retry-After " + d.toSeconds() + " s)")
                            .orElse(""));
            this.retryAfter = retryAfter;
        }

        /** @return the {@code Retry-After} wait, when the answer had one */
        Optional<Duration> retryAfter() {
            return retryAfter;
        }
    }

    HubHttp(URI endpoint, Optional<String> token, Duration connectTimeout, Duration responseTimeout) {
        this(endpoint, token, Optional.empty(), connectTimeout, responseTimeout);
    }

    HubHttp(
            URI endpoint,
            Optional<String> token,
            Optional<String> basicAuth,
            Duration connectTimeout,
            Duration responseTimeout) {
        this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
        this.token = Objects.requireNonNull(token, "token");
        this.basicAuth = Objects.requireNonNull(basicAuth, "basicAuth");
        this.responseTimeout = responseTimeout;
        this.client = HttpClient.newBuilder()
                .followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(connectTimeout)
                .version(HttpClient.Version.HTTP_1_1)
                .build();
        String version = HubHttp.class.getPackage().getImplementationVersion();
        this.userAgent = "flux2-java/" + (version == null ? "dev" : version) + "; java/"
                + Runtime.version().feature();
    }

    /** @return the endpoint, without trailing slash */
    URI endpoint() {
        return endpoint;
    }

    /** @return whether a token is configured (its value is never exposed) */
    boolean hasToken() {
        return token.isPresent();
    }

    /**
     * @param repo repository id
     * @param revision branch, tag or commit
     * @param path file path in the repository
     * @return {@code {endpoint}/{repo}/resolve/{quote(revision, safe="")}/{quote(path)}}
     */
    URI resolveUrl(String repo, String revision, String path) {
        return URI.create(endpoint + "/" + repo + "/resolve/" + quote(revision, false) + "/" + quote(path, true));
    }

    /**
     * @param repo repository id
     * @param revision branch, tag or commit
     * @return {@code {endpoint}/api/models/{repo}/revision/{quote(revision, safe="")}?blobs=true}
     *     ({@code HfApi.model_info} with {@code files_metadata=True})
     */
    URI modelInfoUrl(String repo, String revision) {
        return URI.create(endpoint + "/api/models/" + repo + "/revision/" + quote(revision, false) + "?blobs=true");
    }

    /**
     * Sends a request, following redirects: relative ones always, absolute ones when {@code followAbsolute}
     * (a GET to the CDN), with the token only while the URL stays on the endpoint's origin.
     *
     * @param method GET or HEAD
     * @param url the first URL
     * @param range the {@code Range} header value, or null
     * @param followAbsolute whether to follow redirects to another origin
     * @return the exchange; the caller closes the body
     * @throws IOException on a network failure
     * @throws InterruptedException when interrupted
     */
    Exchange send(String method, URI url, String range, boolean followAbsolute)
            throws IOException, InterruptedException {
        return send(method, url, range, followAbsolute, responseTimeout);
    }

    /**
     * As {@link #send(String, URI, String, boolean)}, waiting for each answer's headers at most {@code
     * headersWithin} (a metadata call passes what is left of its total time limit).
     */
    Exchange send(String method, URI url, String range, boolean followAbsolute, Duration headersWithin)
            throws IOException, InterruptedException {
        Duration headerTimeout = headersWithin.compareTo(responseTimeout) < 0 ? headersWithin : responseTimeout;
        URI current = url;
        HttpHeaders first = null;
        for (int hop = 0; ; hop++) {
            HttpRequest.Builder b = HttpRequest.newBuilder(current)
                    .timeout(headerTimeout)
                    .method(method, HttpRequest.BodyPublishers.noBody())
                    .header("User-Agent", userAgent)
                    .header("Accept-Encoding", "identity");
            if (range != null) {
                b.header("Range", range);
            }
            if (basicAuth.isPresent() && sameOrigin(current, endpoint)) {
                // The endpoint's user:password, as Python's clients send it (it takes the Bearer header's place).
                b.header(
                        "Authorization",
                        "Basic "
                                + Base64.getEncoder()
                                        .encodeToString(basicAuth.get().getBytes(StandardCharsets.UTF_8)));
            } else if (token.isPresent() && sameOrigin(current, endpoint)) {
                b.header("Authorization", "Bearer " + token.get());
            }
            HttpResponse<InputStream> r = client.send(b.build(), info -> {
                boolean redirect = info.statusCode() >= 300 && info.statusCode() < 400;
                return redirect || method.equals("HEAD")
                        ? HttpResponse.BodySubscribers.replacing(null)
                        : HttpResponse.BodySubscribers.ofInputStream();
            });
            if (first == null) {
                first = r.headers();
            }
            int status = r.statusCode();
            Optional<String> location = r.headers().firstValue("Location");
            if (status < 300 || status >= 400 || location.isEmpty() || status == 304) {
                return new Exchange(first, r, current);
            }
            URI target = current.resolve(location.get());
            boolean relative = URI.create(location.get()).getHost() == null;
            if (!relative && !followAbsolute) {
                return new Exchange(first, r, current);
            }
            if (hop >= MAX_REDIRECTS) {
                throw new IOException("more than " + MAX_REDIRECTS + " redirects from " + Redact.url(url));
            }
            current = target;
        }
    }

    /**
     * @param status an HTTP status
     * @return whether trying again later may help (timeouts, rate limits, server errors)
     */
    static boolean retryable(int status) {
        return RETRYABLE.contains(status);
    }

    /**
     * @param status a retryable status
     * @param headers the answer's headers
     * @param url the URL
     * @return the exception to retry on, carrying {@code Retry-After}
     */
    static RetryableStatus retry(int status, HttpHeaders headers, URI url) {
        return new RetryableStatus(status, url, RetryAfter.of(headers, Instant.now()));
    }

    /**
     * The error for a refused request, in the hub's terms ({@code X-Error-Code}, as {@code hf_raise_for_status}
     * reads it).
     *
     * @param what what was asked for, for example {@code "tokenizer.json of owner/name@main"}
     * @param status the status
     * @param headers the answer's headers
     * @param url the URL
     * @return the exception to throw
     */
    HubException refused(String what, int status, HttpHeaders headers, URI url) {
        String code = headers.firstValue("X-Error-Code").orElse("");
        String base = what + ": HTTP " + status + " from " + Redact.url(url);
        String hint;
        if (status == 401 || "RepoNotFound".equals(code) || "GatedRepo".equals(code)) {
            hint = token.isPresent()
                    ? "the repository does not exist, or the token sent has no access to it"
                    : "the repository does not exist, or is private or gated: no token was sent (set HF_TOKEN,"
                            + " write one to the token file with `hf auth login`, or pass a token)";
        } else if (status == 403) {
            hint = "access refused; for a gated repository accept its terms on the hub with this token's account";
        } else if ("RevisionNotFound".equals(code)) {
            hint = "the revision does not exist in this repository";
        } else if ("EntryNotFound".equals(code) || status == 404) {
            hint = "not found in this repository at this revision";
        } else {
            hint = "unexpected answer";
        }
        return new HubException(base + (code.isEmpty() ? "" : " (" + code + ")") + ": " + hint);
    }

    /**
     * {@code file_download._normalize_etag}: strips a weak {@code W/} prefix and the quotes.
     *
     * @param etag a header value, or null
     * @return the normalised value, or null
     */
    static String normalizeEtag(String etag) {
        if (etag == null) {
            return null;
        }
        String e = etag.strip();
        if (e.startsWith("W/")) {
            e = e.substring(2);
        }
        while (e.startsWith("\"")) {
            e = e.substring(1);
        }
        while (e.endsWith("\"")) {
            e = e.substring(0, e.length() - 1);
        }
        return e.isEmpty() ? null : e;
    }

    /**
     * @param headers a hub answer's headers
     * @return the file's ETag: {@code X-Linked-Etag} (an LFS file's SHA-256) first, else {@code ETag}
     *     ({@code get_hf_file_metadata})
     */
    static String etagOf(HttpHeaders headers) {
        return normalizeEtag(headers.firstValue(X_LINKED_ETAG)
                .or(() -> headers.firstValue("ETag"))
                .orElse(null));
    }

    static boolean sameOrigin(URI a, URI b) {
        return a.getScheme() != null
                && a.getScheme().equalsIgnoreCase(b.getScheme())
                && a.getHost() != null
                && a.getHost().equalsIgnoreCase(b.getHost())
                && port(a) == port(b);
    }

    private static int port(URI u) {
        if (u.getPort() >= 0) {
            return u.getPort();
        }
        return "https".equalsIgnoreCase(u.getScheme()) ? 443 : 80;
    }

    /** Python's {@code urllib.parse.quote}: unreserved characters kept, {@code /} kept only when {@code slash}. */
    static String quote(String s, boolean slash) {
        StringBuilder sb = new StringBuilder();
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            boolean keep = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '-'
                    || c == '.'
                    || c == '_'
                    || c == '~'
                    || (slash && c == '/');
            if (keep) {
                sb.append((char) c);
            } else {
                sb.append('%').append(String.format(Locale.ROOT, "%02X", c));
            }
        }
        return sb.toString();
    }
}
