package dev.flux2.onnx.session;

import com.sun.jna.Function;
import com.sun.jna.NativeLibrary;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Caps glibc's malloc arenas at {@value #ARENAS} for the process ({@code mallopt(M_ARENA_MAX, 2)} through JNA), once,
 * before the first session creates its thread pool.
 *
 * <p>Why: every ONNX Runtime session has its own intra-op thread pool, and glibc gives each new thread that
 * allocates its own arena (up to 8 per core). Memory freed into those arenas is rarely returned, so 40
 * build/generate/close cycles of the real bundle grew RSS from 1.06 to 1.49 GB; with {@code MALLOC_ARENA_MAX=2} it
 * stayed flat (issue #24). ONNX Runtime's tensors come from its own arena allocator, so the malloc arenas carry only
 * small allocations and two suffice. The environment variable {@code MALLOC_ARENA_MAX}, when set, wins (glibc
 * read it at start-up and this class leaves it alone); elsewhere than glibc this is a no-op.
 */
final class MallocArenas {
    /** The cap: the value measured flat in issue #24. */
    static final int ARENAS = 2;
    /** glibc's {@code M_ARENA_MAX} parameter of {@code mallopt}. */
    private static final int M_ARENA_MAX = -8;

    private static final Logger LOG = LoggerFactory.getLogger(MallocArenas.class);
    private static final AtomicBoolean DONE = new AtomicBoolean();

    private MallocArenas() {}

    /** Applies the cap once per process; later calls do nothing. */
    static void capOnce() {
        if (!DONE.compareAndSet(false, true)) {
            return;
        }
        if (System.getenv("MALLOC_ARENA_MAX") != null) {
            LOG.debug(
                    "MALLOC_ARENA_MAX={} set by the environment; arenas left as glibc set them",
                    System.getenv("MALLOC_ARENA_MAX"));
            return;
        }
        try {
            Function mallopt = NativeLibrary.getInstance("c").getFunction("mallopt");
            int ok = mallopt.invokeInt(new Object[] {M_ARENA_MAX, ARENAS});
            LOG.debug("mallopt(M_ARENA_MAX, {}) {}", ARENAS, ok == 1 ? "applied" : "refused");
        } catch (UnsatisfiedLinkError | NoClassDefFoundError e) {
            LOG.debug("mallopt is not available on this platform ({}); malloc arenas left as they are", e.toString());
        }
    }
}
