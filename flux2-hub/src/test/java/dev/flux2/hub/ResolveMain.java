package dev.flux2.hub;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** A separate process for {@link TwoProcessesTest}: resolves {@code args[2]} from endpoint {@code args[0]} into cache {@code args[1]}. */
public final class ResolveMain {
    private ResolveMain() {}

    /**
     * @param args endpoint, cache folder, repo id
     */
    public static void main(String[] args) {
        ResolvedModel r = ModelHub.builder()
                .options(HubOptions.builder()
                        .endpoint(URI.create(args[0]))
                        .cacheDir(Path.of(args[1]))
                        .build())
                .environment(Map.of())
                .stallTimeout(java.time.Duration.ofSeconds(2))
                .knownBundles(KnownBundles.none())
                .folderCheck(dir -> List.of())
                .build()
                .resolve(RepoRef.parse(args[2]));
        System.out.println("fetched=" + r.downloadedFiles());
    }
}
