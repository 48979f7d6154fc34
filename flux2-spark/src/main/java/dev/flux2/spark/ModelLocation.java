package dev.flux2.spark;

import dev.flux2.Flux2Models;
import dev.flux2.api.ModelLoadException;
import dev.flux2.hub.HubModelResolver;
import dev.flux2.hub.HubOptions;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.file.Path;

/**
 * Turns {@link BatchOptions#model()} into the folder an executor loads: an existing folder (a path or a
 * {@code file:} URI) as it is; otherwise a Hugging Face repo id {@code owner/name[@revision]}, resolved through the
 * shared hub cache of this host ({@code flux2-hub}: fetched and verified once, then reused by every JVM of the host;
 * the cache folder, endpoint, token and offline mode come from the options or the executor's environment, e.g.
 * {@code HF_HOME}, {@code HF_TOKEN}, {@code HF_HUB_OFFLINE}).
 */
final class ModelLocation {
    private ModelLocation() {}

    /**
     * @param key the model and hub settings
     * @return the model folder on this host
     * @throws ModelLoadException when it is neither a folder here nor a repo id that can be resolved, naming the host
     */
    static Path resolve(PipelineKey key) {
        String model = key.model().startsWith("file:")
                ? Path.of(URI.create(key.model())).toString()
                : key.model();
        HubOptions.Builder hub = HubOptions.defaults().toBuilder();
        if (key.hubCacheDir() != null) {
            hub.cacheDir(Path.of(key.hubCacheDir()));
        }
        if (key.hubEndpoint() != null) {
            hub.endpoint(URI.create(key.hubEndpoint()));
        }
        try {
            return Flux2Models.resolve(model, new HubModelResolver(hub.build()));
        } catch (ModelLoadException e) {
            throw new ModelLoadException(
                    Values.oneLine(e) + " (on " + hostName()
                            + "; every executor must read a model folder at the same path, or resolve the repo id)",
                    e);
        }
    }

    private static String hostName() {
        try {
            return "host " + InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "this host";
        }
    }
}
