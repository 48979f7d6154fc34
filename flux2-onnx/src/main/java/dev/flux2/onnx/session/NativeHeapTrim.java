package dev.flux2.onnx.session;

import com.sun.jna.Function;
import com.sun.jna.NativeLibrary;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks the C allocator to return freed memory to the operating system ({@code malloc_trim(0)} of glibc, called
 * through JNA, which the DJL tokenizer already brings).
 *
 * <p>Why: memory that native code frees (the tokenizer's parse buffers, a closed session's smaller allocations)
 * stays in glibc's heaps and keeps counting in the process's RSS. Under
 * {@link dev.flux2.api.MemoryPolicy#SEQUENTIAL} the peak is set while the next large session is created (≈ 1.3 × its
 * weights, ONNX Runtime's pre-packing), so whatever freed memory is still held at that moment adds to the peak.
 * Trimming first lowers that peak for a few milliseconds per call (figures in docs/performance.md, "Memory settings
 * of the ONNX backend").
 *
 * <p>Only glibc has {@code malloc_trim}: elsewhere (macOS, Windows, musl) the first call logs at DEBUG that
 * trimming is unavailable and every call is a no-op, leaving freed memory to the platform's allocator as before.
 * Thread-safe. Exported (module-info) to {@code flux2-bench} only, which measures its effect.
 */
public final class NativeHeapTrim {
    private static final Logger LOG = LoggerFactory.getLogger(NativeHeapTrim.class);
    private static final AtomicBoolean UNAVAILABLE = new AtomicBoolean();
    private static volatile Function trim;

    private NativeHeapTrim() {}

    /**
     * Calls {@code malloc_trim(0)} where glibc provides it.
     *
     * @return whether memory was returned (false also when trimming is unavailable on this platform)
     */
    public static boolean trim() {
        Function f = function();
        if (f == null) {
            return false;
        }
        long start = System.nanoTime();
        boolean released = f.invokeInt(new Object[] {0}) != 0;
        LOG.debug(
                "malloc_trim(0) {} in {} µs",
                released ? "returned memory" : "returned nothing",
                (System.nanoTime() - start) / 1000);
        return released;
    }

    private static Function function() {
        Function f = trim;
        if (f != null || UNAVAILABLE.get()) {
            return f;
        }
        try {
            f = NativeLibrary.getInstance("c").getFunction("malloc_trim");
            trim = f;
            return f;
        } catch (UnsatisfiedLinkError | NoClassDefFoundError e) {
            if (UNAVAILABLE.compareAndSet(false, true)) {
                LOG.debug(
                        "malloc_trim is not available on this platform ({}); freed native memory stays with the C "
                                + "allocator",
                        e.toString());
            }
            return null;
        }
    }
}
