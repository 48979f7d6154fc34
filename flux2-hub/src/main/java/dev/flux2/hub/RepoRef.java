package dev.flux2.hub;

import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A Hugging Face model repository at a revision, written {@code owner/name} (revision {@code main}) or
 * {@code owner/name@revision} (a branch, a tag or a commit).
 *
 * @param repo the repository id, {@code owner/name}
 * @param revision a branch, tag or commit
 */
public record RepoRef(String repo, String revision) {
    /** The revision used when none is given, as in {@code huggingface_hub} ({@code constants.DEFAULT_REVISION}). */
    public static final String DEFAULT_REVISION = "main";

    // huggingface_hub's validate_repo_id: letters, digits, '-', '_', '.'; no leading/trailing '-' or '.'; no "--".
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9](?:[A-Za-z0-9._-]{0,94}[A-Za-z0-9_])?");
    // file_download.REGEX_COMMIT_HASH
    private static final Pattern COMMIT = Pattern.compile("[0-9a-f]{40}");
    private static final Pattern REVISION = Pattern.compile("[A-Za-z0-9._/+-]{1,255}");

    /** Validates both parts. */
    public RepoRef {
        Objects.requireNonNull(repo, "repo");
        Objects.requireNonNull(revision, "revision");
        if (!isRepoId(repo)) {
            throw new IllegalArgumentException("'" + repo + "' is not a Hugging Face repo id (owner/name)");
        }
        if (!REVISION.matcher(revision).matches()
                || revision.startsWith("/")
                || revision.endsWith("/")
                || ("/" + revision + "/").contains("/../")
                || ("/" + revision + "/").contains("/./")
                || revision.contains("//")) {
            throw new IllegalArgumentException("'" + revision + "' is not a valid revision (a branch, tag or commit)");
        }
    }

    /**
     * @param reference {@code owner/name} or {@code owner/name@revision}
     * @return the reference
     * @throws IllegalArgumentException when it is not of that form
     */
    public static RepoRef parse(String reference) {
        Objects.requireNonNull(reference, "reference");
        String s = reference.trim();
        int at = s.indexOf('@');
        return at < 0 ? new RepoRef(s, DEFAULT_REVISION) : new RepoRef(s.substring(0, at), s.substring(at + 1));
    }

    /**
     * A syntax check only.
     *
     * @param reference a string
     * @return whether {@link #parse} accepts it
     */
    public static boolean isValid(String reference) {
        try {
            parse(reference);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static boolean isRepoId(String repo) {
        int slash = repo.indexOf('/');
        if (slash < 0 || repo.indexOf('/', slash + 1) >= 0) {
            return false;
        }
        String owner = repo.substring(0, slash);
        String name = repo.substring(slash + 1);
        return NAME.matcher(owner).matches()
                && NAME.matcher(name).matches()
                && !owner.contains("--")
                && !name.contains("--")
                && !owner.contains("..")
                && !name.contains("..");
    }

    /** @return whether the revision is a full commit id (40 lower-case hex digits), which never moves */
    public boolean isCommit() {
        return COMMIT.matcher(revision).matches();
    }

    /**
     * @return the repository's folder name in the hub cache, {@code models--owner--name}
     *     ({@code file_download.repo_folder_name})
     */
    public String cacheFolderName() {
        return "models--" + repo.replace("/", "--");
    }

    /** @return {@code owner/name@revision} */
    @Override
    public String toString() {
        return repo + "@" + revision;
    }

    static boolean isCommitId(String s) {
        return s != null
                && COMMIT.matcher(s.toLowerCase(Locale.ROOT)).matches()
                && s.equals(s.toLowerCase(Locale.ROOT));
    }
}
