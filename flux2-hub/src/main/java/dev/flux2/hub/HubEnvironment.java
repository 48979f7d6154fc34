package dev.flux2.hub;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads the settings {@code huggingface_hub} reads from the environment, with the same precedence and defaults
 * ({@code huggingface_hub/constants.py}; the token as in {@code utils/_auth.py}), so that the cache, endpoint,
 * token and offline mode are shared with the Python tools. An option set in {@link HubOptions} wins.
 */
final class HubEnvironment {
    /** {@code constants._HF_DEFAULT_ENDPOINT}. */
    static final String DEFAULT_ENDPOINT = "https://huggingface.co";
    /** {@code constants.ENV_VARS_TRUE_VALUES}. */
    private static final Set<String> TRUE_VALUES = Set.of("1", "ON", "YES", "TRUE");

    private final Map<String, String> env;
    private final Path userHome;

    HubEnvironment(Map<String, String> env, Path userHome) {
        this.env = Map.copyOf(env);
        this.userHome = userHome;
    }

    /** @return the process environment and {@code user.home} */
    static HubEnvironment system() {
        return new HubEnvironment(System.getenv(), Path.of(System.getProperty("user.home")));
    }

    /**
     * {@code constants.HF_HUB_CACHE}: {@code HF_HUB_CACHE}, else the legacy {@code HUGGINGFACE_HUB_CACHE}, else
     * {@code HF_HOME/hub}.
     *
     * @param options the caller's options
     * @return the hub cache folder
     */
    Path cacheDir(HubOptions options) {
        if (options.cacheDir().isPresent()) {
            return options.cacheDir().get();
        }
        return get("HF_HUB_CACHE")
                .or(() -> get("HUGGINGFACE_HUB_CACHE"))
                .map(this::expandUser)
                .orElseGet(() -> hfHome().resolve("hub"));
    }

    /**
     * {@code constants.HF_HOME}: {@code HF_HOME}, else {@code XDG_CACHE_HOME/huggingface}, else
     * {@code ~/.cache/huggingface}.
     *
     * @return the Hugging Face home folder
     */
    Path hfHome() {
        return get("HF_HOME")
                .map(this::expandUser)
                .orElseGet(() -> get("XDG_CACHE_HOME")
                        .map(this::expandUser)
                        .orElseGet(() -> userHome.resolve(".cache"))
                        .resolve("huggingface"));
    }

    /**
     * {@code constants.ENDPOINT}: {@code HF_ENDPOINT} without trailing slashes, else the public hub.
     *
     * @param options the caller's options
     * @return the endpoint
     */
    URI endpoint(HubOptions options) {
        return endpointWithCredentials(options).uri();
    }

    /**
     * The endpoint split into the URL shown and used (without {@code user:password@}) and the credentials its
     * userinfo held, which are sent as {@code Authorization: Basic} to the endpoint's origin as Python's clients
     * send them, and never shown.
     *
     * @param options the caller's options
     * @return the endpoint and its credentials
     * @throws HubException when the endpoint is not an http(s) URL (the message shows it without its userinfo)
     */
    Endpoint endpointWithCredentials(HubOptions options) {
        String source = options.endpoint().isPresent() ? "the endpoint option" : "HF_ENDPOINT";
        String e = options.endpoint()
                .map(URI::toString)
                .or(() -> get("HF_ENDPOINT"))
                .orElse(DEFAULT_ENDPOINT)
                .strip();
        while (e.endsWith("/")) {
            e = e.substring(0, e.length() - 1);
        }
        URI uri;
        try {
            uri = new URI(e);
        } catch (URISyntaxException ex) {
            throw new HubException(source + " is not a valid URL: '" + Redact.text(e) + "' (" + ex.getReason()
                    + " at index " + ex.getIndex() + ")");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
            throw new HubException(source + " must be an http(s) URL with a host, got '" + Redact.url(uri) + "'");
        }
        Optional<String> userInfo = Optional.ofNullable(uri.getUserInfo()).filter(u -> !u.isEmpty());
        return new Endpoint(Redact.withoutUserInfo(uri), userInfo);
    }

    /**
     * An endpoint and the credentials of its userinfo.
     *
     * @param uri the endpoint without userinfo
     * @param basicAuth the decoded {@code user:password}, if the URL held one
     */
    record Endpoint(URI uri, Optional<String> basicAuth) {
        @Override
        public String toString() {
            return "Endpoint[" + uri + (basicAuth.isPresent() ? ", basic auth ***" : "") + "]";
        }
    }

    /**
     * {@code constants.HF_HUB_OFFLINE}: {@code HF_HUB_OFFLINE} or {@code TRANSFORMERS_OFFLINE} set to one of
     * {@code 1, ON, YES, TRUE}.
     *
     * @param options the caller's options
     * @return whether no request may be made
     */
    boolean offline(HubOptions options) {
        return options.offline().orElseGet(() -> isTrue(get("HF_HUB_OFFLINE").or(() -> get("TRANSFORMERS_OFFLINE"))));
    }

    /**
     * {@code _auth.get_token}: the option, else {@code HF_TOKEN} (or the legacy {@code HUGGING_FACE_HUB_TOKEN}),
     * else the token file ({@code HF_TOKEN_PATH}, else {@code HF_HOME/token}); cleaned as {@code _clean_token}
     * does (line breaks removed, blanks trimmed, empty means none).
     *
     * @param options the caller's options
     * @return the token, if any
     */
    Optional<String> token(HubOptions options) {
        if (options.token().isPresent()) {
            return clean("the token option", options.token().get());
        }
        Optional<String> env = get("HF_TOKEN").map(t -> clean("HF_TOKEN", t)).flatMap(t -> t);
        if (env.isEmpty()) {
            env = get("HUGGING_FACE_HUB_TOKEN").flatMap(t -> clean("HUGGING_FACE_HUB_TOKEN", t));
        }
        if (env.isPresent()) {
            return env;
        }
        Path file = get("HF_TOKEN_PATH").map(this::expandUser).orElseGet(() -> hfHome().resolve("token"));
        try {
            return Files.isRegularFile(file)
                    ? clean("the token file " + file, Files.readString(file))
                    : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * {@code _clean_token}, plus: a leading byte order mark (an editor's) is removed, and a token that still
     * holds a character an HTTP header cannot carry is refused, naming where it came from and the position, never
     * the token (the JDK's own refusal would print the whole header value).
     */
    static Optional<String> clean(String source, String token) {
        String t =
                token.replace("\uFEFF", "").replace("\r", "").replace("\n", "").strip();
        if (t.isEmpty()) {
            return Optional.empty();
        }
        checkHeaderSafe(source, t);
        return Optional.of(t);
    }

    /** Refuses a control or non-ASCII character, naming its code point and position only. */
    static void checkHeaderSafe(String source, String secret) {
        for (int i = 0; i < secret.length(); i++) {
            char c = secret.charAt(i);
            if (c < 0x20 || c >= 0x7F) {
                throw new HubException(source + " holds a character that cannot be sent in an HTTP header ("
                        + String.format(Locale.ROOT, "U+%04X", (int) c) + " at position " + (i + 1) + " of "
                        + secret.length() + "; the value is not shown): write it again as plain ASCII");
            }
        }
    }

    private static boolean isTrue(Optional<String> value) {
        return value.map(v -> TRUE_VALUES.contains(v.trim().toUpperCase(Locale.ROOT)))
                .orElse(false);
    }

    private Optional<String> get(String name) {
        String v = env.get(name);
        return v == null || v.isEmpty() ? Optional.empty() : Optional.of(v);
    }

    private Path expandUser(String path) {
        if (path.equals("~")) {
            return userHome;
        }
        if (path.startsWith("~/")) {
            return userHome.resolve(path.substring(2));
        }
        return Path.of(path);
    }
}
