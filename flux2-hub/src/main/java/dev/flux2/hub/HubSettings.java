package dev.flux2.hub;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Everything a resolution needs, with options and environment already combined.
 *
 * @param cacheDir the hub cache folder
 * @param endpoint the hub endpoint
 * @param token the access token, if any
 * @param basicAuth {@code user:password} from the endpoint's userinfo, sent as Basic auth to its origin, if any
 * @param offline whether no request may be made
 * @param listener download progress receiver
 * @param retries resuming retries per file after an interrupted transfer
 * @param stallTimeout a transfer receiving nothing for this long is aborted (and retried)
 * @param connectTimeout TCP/TLS connect timeout
 * @param responseTimeout time allowed until response headers arrive
 * @param maxFileTime total time allowed per file, retries included
 * @param metadataTimeout total time allowed for one metadata answer (the file list, a HEAD), body included
 * @param maxRetryAfter the longest {@code Retry-After} wait honoured; a longer one gives up at once
 * @param knownBundles pinned file lists
 * @param folderCheck the backend's check of a model folder: one line per problem
 * @param sleeper waits between retries
 */
record HubSettings(
        Path cacheDir,
        URI endpoint,
        Optional<String> token,
        Optional<String> basicAuth,
        boolean offline,
        DownloadListener listener,
        int retries,
        Duration stallTimeout,
        Duration connectTimeout,
        Duration responseTimeout,
        Duration maxFileTime,
        Duration metadataTimeout,
        Duration maxRetryAfter,
        KnownBundles knownBundles,
        Function<Path, List<String>> folderCheck,
        HubApi.Sleeper sleeper) {

    @Override
    public String toString() {
        return "HubSettings[cacheDir=" + cacheDir + ", endpoint=" + endpoint + ", token="
                + (token.isPresent() ? "***" : "none") + (basicAuth.isPresent() ? ", basic auth ***" : "")
                + ", offline=" + offline + "]";
    }
}
