package dev.flux2.hub;

import dev.flux2.api.InvalidRequestException;
import java.net.URI;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * How a model named by a Hugging Face repository id is found and fetched (see
 * {@code Flux2Pipeline.builder().model(String)}, through {@link HubModelResolver}). Every option left unset falls back to the environment variable
 * that {@code huggingface_hub} reads, so that models are shared with the Python tools:
 *
 * <ul>
 *   <li>cache folder: {@code HF_HUB_CACHE}, else {@code HF_HOME/hub}, else {@code ~/.cache/huggingface/hub};
 *   <li>offline: {@code HF_HUB_OFFLINE=1} (no request at all; only a complete cache can be used);
 *   <li>token: {@code HF_TOKEN}, else the token file ({@code HF_TOKEN_PATH}, else {@code HF_HOME/token});
 *   <li>endpoint: {@code HF_ENDPOINT}, else {@code https://huggingface.co}.
 * </ul>
 *
 * <p>Immutable; build with {@link #builder()}. {@link #toString()} never shows the token.
 */
public final class HubOptions {
    private static final HubOptions DEFAULTS = builder().build();

    private final Path cacheDir;
    private final Boolean offline;
    private final String token;
    private final URI endpoint;
    private final DownloadListener listener;

    private HubOptions(Builder b) {
        this.cacheDir = b.cacheDir;
        this.offline = b.offline;
        this.token = b.token;
        this.endpoint = b.endpoint;
        this.listener = b.listener;
    }

    /** @return every option unset (the environment decides), no listener */
    public static HubOptions defaults() {
        return DEFAULTS;
    }

    /** @return a builder with every option unset */
    public static Builder builder() {
        return new Builder();
    }

    /** @return a builder holding these options */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.cacheDir = cacheDir;
        b.offline = offline;
        b.token = token;
        b.endpoint = endpoint;
        b.listener = listener;
        return b;
    }

    /** @return the hub cache folder, when set (otherwise the environment decides) */
    public Optional<Path> cacheDir() {
        return Optional.ofNullable(cacheDir);
    }

    /** @return whether requests are forbidden, when set (otherwise {@code HF_HUB_OFFLINE} decides) */
    public Optional<Boolean> offline() {
        return Optional.ofNullable(offline);
    }

    /** @return the access token, when set (otherwise {@code HF_TOKEN} or the token file) */
    public Optional<String> token() {
        return Optional.ofNullable(token);
    }

    /** @return the hub endpoint, when set (otherwise {@code HF_ENDPOINT} or the public hub) */
    public Optional<URI> endpoint() {
        return Optional.ofNullable(endpoint);
    }

    /** @return the download progress receiver ({@link DownloadListener#NONE} by default) */
    public DownloadListener listener() {
        return listener;
    }

    @Override
    public String toString() {
        return "HubOptions[cacheDir=" + cacheDir + ", offline=" + offline + ", token="
                + (token == null ? "unset" : "***") + ", endpoint="
                + (endpoint == null ? null : endpoint.toString().replaceFirst("(?<=//)[^/?#\\s]*@", "***@")) + "]";
    }

    /** Builder of {@link HubOptions}; validated in {@link #build()}. Not thread-safe. */
    public static final class Builder {
        private Path cacheDir;
        private Boolean offline;
        private String token;
        private URI endpoint;
        private DownloadListener listener = DownloadListener.NONE;

        private Builder() {}

        /** @param dir the hub cache folder (the one holding {@code models--owner--name}) @return this */
        public Builder cacheDir(Path dir) {
            this.cacheDir = dir;
            return this;
        }

        /** @param offline true: make no request at all; false: ignore {@code HF_HUB_OFFLINE} @return this */
        public Builder offline(boolean offline) {
            this.offline = offline;
            return this;
        }

        /** @param token an access token, sent as {@code Authorization: Bearer} to the endpoint only @return this */
        public Builder token(String token) {
            this.token = token;
            return this;
        }

        /** @param endpoint the hub endpoint (a mirror), for example {@code https://huggingface.co} @return this */
        public Builder endpoint(URI endpoint) {
            this.endpoint = endpoint;
            return this;
        }

        /** @param listener receives download progress @return this */
        public Builder listener(DownloadListener listener) {
            this.listener = listener;
            return this;
        }

        /**
         * @return the options
         * @throws InvalidRequestException for a blank token, a non-http(s) endpoint or a null listener
         */
        public HubOptions build() {
            if (listener == null) {
                throw new InvalidRequestException("listener must not be null (use DownloadListener.NONE)");
            }
            if (token != null && token.isBlank()) {
                throw new InvalidRequestException("token must not be blank");
            }
            if (endpoint != null) {
                String scheme = Objects.requireNonNullElse(endpoint.getScheme(), "");
                if (!scheme.equalsIgnoreCase("http") && !scheme.equalsIgnoreCase("https")
                        || endpoint.getHost() == null) {
                    // Without its userinfo: an endpoint's user:password must never reach a message.
                    throw new InvalidRequestException("endpoint must be an http(s) URL, got '"
                            + endpoint.toString().replaceFirst("(?<=//)[^/?#\\s]*@", "") + "'");
                }
            }
            return new HubOptions(this);
        }
    }
}
