package dev.flux2.onnx.stage;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns the native resources of one stage call (tensors, results, session leases) and closes each exactly once:
 * early through {@link #closeNow} when a later step no longer needs it, otherwise in reverse order of creation
 * when the scope closes, so a run's outputs are closed before the session that made them. Not thread-safe.
 */
final class ResourceScope implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ResourceScope.class);

    private final List<AutoCloseable> resources = new ArrayList<>();

    /**
     * @param resource a resource this scope now owns
     * @param <T> its type
     * @return the resource
     */
    <T extends AutoCloseable> T add(T resource) {
        resources.add(resource);
        return resource;
    }

    /**
     * Closes one resource now (if this scope still owns it).
     *
     * @param resource the resource
     */
    void closeNow(AutoCloseable resource) {
        for (int i = resources.size() - 1; i >= 0; i--) {
            if (resources.get(i) == resource) {
                resources.remove(i);
                closeAll(List.of(resource));
                return;
            }
        }
    }

    /** Closes everything still owned, newest first; rethrows the first failure after closing the rest. */
    @Override
    public void close() {
        List<AutoCloseable> reversed = new ArrayList<>(resources);
        Collections.reverse(reversed);
        resources.clear();
        closeAll(reversed);
    }

    private static void closeAll(List<AutoCloseable> list) {
        RuntimeException first = null;
        for (AutoCloseable r : list) {
            try {
                r.close();
            } catch (Exception e) {
                if (first == null) {
                    first = e instanceof RuntimeException re ? re : new IllegalStateException(e);
                } else {
                    first.addSuppressed(e);
                    LOG.debug("further failure while closing", e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
