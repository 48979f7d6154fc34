package dev.flux2.server;

/**
 * Where OpenAI's resources are served: under {@code /v1} as OpenAI does, and also without the prefix, because
 * clients differ on who adds it (Spring AI's {@code OpenAiImageModel} on the openai-java SDK, given
 * {@code http://localhost:8080}, posts to {@code /images/generations}; LangChain4j and the {@code openai} packages
 * are given {@code …/v1}). Every route is registered under its {@code /v1} path; {@link #canonical} maps the
 * unprefixed form onto it. {@code /health} and {@code /metrics} have no prefix.
 */
final class ApiPaths {
    static final String V1 = "/v1";

    private ApiPaths() {}

    /**
     * @param path a request's path
     * @return the {@code /v1} path of an OpenAI resource given without the prefix ({@code /images…},
     *     {@code /models…}); any other path as it is
     */
    static String canonical(String path) {
        if (under(path, "/images") || under(path, "/models")) {
            return V1 + path;
        }
        return path;
    }

    private static boolean under(String path, String root) {
        return path.equals(root) || path.startsWith(root + "/");
    }
}
