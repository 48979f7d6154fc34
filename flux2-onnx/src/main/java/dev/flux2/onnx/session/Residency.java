package dev.flux2.onnx.session;

/**
 * One memory policy's half of the {@link SessionCache}: which sessions live how long ({@link ResidentSessions},
 * {@link SequentialSessions}). The cache keeps what both share: the sessions it has opened, those opened ahead, and
 * closing them all. Every method runs under the cache's lock or takes it.
 */
abstract sealed class Residency permits ResidentSessions, SequentialSessions {
    /** The cache this half belongs to; its lock guards this half's state too. */
    final SessionCache cache;

    Residency(SessionCache cache) {
        this.cache = cache;
    }

    /**
     * @param spec the graph and its pinned dimensions
     * @return a lease on a session for the spec
     */
    abstract SessionLease acquire(SessionSpec spec);

    /**
     * @param spec the graph and its pinned dimensions
     * @param concurrentWeightBytes the weights of a session the generation creates meanwhile, 0 for none
     * @return whether opening {@code spec} ahead is worth it and fits; the caller holds the cache's lock
     */
    abstract boolean mayPrefetchLocked(SessionSpec spec, long concurrentWeightBytes);

    /** @return whether freed native memory goes back to the OS before a session is created */
    abstract boolean trimsBeforeCreation();

    /** Forgets every session (the cache closes them); the caller holds the cache's lock. */
    abstract void clearLocked();
}
