package dev.flux2.hub;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Bundles whose files are pinned by size and BLAKE3-256 digest at one revision (a copy of the project's
 * {@code known-bundles.json}, shipped as a resource). Immutable and thread-safe.
 */
public final class KnownBundles {
    /** The resource holding the shipped list. */
    public static final String RESOURCE = "known-bundles.json";

    private final List<KnownBundle> bundles;

    /**
     * One pinned bundle.
     *
     * @param id a short id
     * @param repo the repository id
     * @param revision the pinned commit
     * @param files expected size and digest by path, in list order
     */
    public record KnownBundle(String id, String repo, String revision, Map<String, KnownFile> files) {
        /** Copies the map (keeping order). */
        public KnownBundle {
            Objects.requireNonNull(repo, "repo");
            Objects.requireNonNull(revision, "revision");
            files = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(files));
        }
    }

    /**
     * One pinned file.
     *
     * @param bytes its size
     * @param blake3 its BLAKE3-256 digest, lower-case hex
     */
    public record KnownFile(long bytes, String blake3) {}

    private KnownBundles(List<KnownBundle> bundles) {
        this.bundles = List.copyOf(bundles);
    }

    /** @return the list shipped with this module */
    public static KnownBundles shipped() {
        try (InputStream in = KnownBundles.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("resource " + RESOURCE + " is missing from the classpath");
            }
            return parse(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read resource " + RESOURCE, e);
        }
    }

    /** @return an empty list (nothing is pinned; downloads are checked against the config only) */
    public static KnownBundles none() {
        return new KnownBundles(List.of());
    }

    /**
     * Parses a list in the {@code known-bundles.json} format.
     *
     * @param json the document
     * @return the list
     * @throws IOException when it is not valid JSON
     * @throws IllegalArgumentException when an entry lacks a field
     */
    public static KnownBundles parse(InputStream json) throws IOException {
        JsonNode root = new ObjectMapper().readTree(json);
        List<KnownBundle> list = new ArrayList<>();
        for (JsonNode b : root.path("bundles")) {
            Map<String, KnownFile> files = new LinkedHashMap<>();
            for (JsonNode f : b.path("files")) {
                if (!f.hasNonNull("path") || !f.path("bytes").canConvertToLong() || !f.hasNonNull("blake3")) {
                    throw new IllegalArgumentException("known bundle "
                            + b.path("id").asText() + " has a file entry without path, bytes or blake3: " + f);
                }
                files.put(
                        f.get("path").asText(),
                        new KnownFile(
                                f.get("bytes").asLong(),
                                f.get("blake3").asText().toLowerCase(java.util.Locale.ROOT)));
            }
            list.add(new KnownBundle(
                    b.path("id").asText(),
                    b.path("repo").asText(),
                    b.path("revision").asText(),
                    files));
        }
        return new KnownBundles(list);
    }

    /**
     * @param repo repository id
     * @param revision revision as requested (only a full commit id can match a pinned entry)
     * @return the pinned bundle, if this exact repository and revision is known
     */
    public Optional<KnownBundle> find(String repo, String revision) {
        return bundles.stream()
                .filter(b -> b.repo().equals(repo) && b.revision().equalsIgnoreCase(revision))
                .findFirst();
    }

    /**
     * @param commit a full commit id
     * @return the pinned bundle at that commit in any repository (for a plain folder, whose repository is not
     *     recorded)
     */
    public Optional<KnownBundle> findAnyRepo(String commit) {
        return bundles.stream()
                .filter(b -> b.revision().equalsIgnoreCase(commit))
                .findFirst();
    }

    /** @return every pinned bundle */
    public List<KnownBundle> all() {
        return bundles;
    }
}
