package dev.flux2.onnx.runtime;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtLoggingLevel;
import ai.onnxruntime.OrtProvider;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chooses the ONNX Runtime native library before ONNX Runtime initialises, and creates the process's one
 * environment on it. ONNX Runtime's Java binding loads its native library once per JVM (the system property
 * {@value #LIBRARY_PROPERTY} names another one than the jar's, and must be set before the first use); the JNI glue
 * {@code onnxruntime4j_jni} still comes from the jar and binds to the library already loaded (same name, same C API).
 * A later request for another library than the one loaded is a {@link RuntimeLibraryException} that names both:
 * it cannot be honoured without a new JVM. Thread-safe.
 *
 * <p>Also {@link #keepEnvironmentAtExit()}: the binding's shutdown hook releases the environment at JVM exit, which
 * crashes the JVM (SIGSEGV in {@code OrtEnvironment.close}) after the WebGPU provider was enabled, most reliably after
 * it found no adapter (docs/gpu.md, "No crash at exit").
 */
public final class OrtNativeLibrary {
    /** ONNX Runtime's system property naming the native library to load instead of the jar's. */
    public static final String LIBRARY_PROPERTY = "onnxruntime.native.onnxruntime.path";
    /** The environment variable naming an ONNX Runtime library (any build of the binding's version). */
    public static final String LIBRARY_ENV = "FLUX2_ORT_LIBRARY";

    /** The system property that sets ONNX Runtime's log severity: warning (default), error, fatal or info. */
    public static final String LOG_LEVEL_PROPERTY = "flux2.ort.log_level";

    private static final Logger LOG = LoggerFactory.getLogger(OrtNativeLibrary.class);
    private static final String CLOSER_CLASS = "ai.onnxruntime.OrtEnvironment$OrtEnvCloser";

    /** Guarded by the class lock. */
    private static OrtEnvironment environment;
    /** The library this class loaded ONNX Runtime from, empty for the jar's; guarded by the class lock. */
    private static Optional<Path> loaded = Optional.empty();
    /** Guarded by the class lock. */
    private static String loadedBecause = "";
    /** The environment's shared thread pool; empty when it has none (created outside this class). */
    private static Optional<GlobalThreadPool> threadPool = Optional.empty();

    private static boolean exitReleaseDetached;

    private OrtNativeLibrary() {}

    /**
     * Which library a session should run on.
     *
     * @param library the library file; empty for "any" (the one loaded, else the jar's)
     * @param reason why this library, for messages ({@code "backend option ort_library"}, …)
     */
    public record Choice(Optional<Path> library, String reason, Optional<Path> nativeFolder) {
        /** Any library: the one already loaded, else the jar's. */
        public static final Choice ANY = new Choice(Optional.empty(), "the ONNX Runtime jar's default");

        /** Checks for nulls; a folder's core library lies in it. */
        public Choice {
            Objects.requireNonNull(library, "library");
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(nativeFolder, "nativeFolder");
            if (nativeFolder.isPresent() && library.isEmpty()) {
                throw new IllegalArgumentException("a native folder needs its core library");
            }
        }

        /**
         * One library, the JNI glue from the jar.
         *
         * @param library the library file; empty for "any"
         * @param reason why this library, for messages
         */
        public Choice(Optional<Path> library, String reason) {
            this(library, reason, Optional.empty());
        }

        /**
         * Every native library from one folder (ONNX Runtime's {@value CudaRuntime#NATIVE_PATH_PROPERTY}): the core,
         * the JNI glue and the providers, as the CUDA runtime needs (the CPU jar's JNI library refuses CUDA).
         *
         * @param folder the folder
         * @param coreLibrary the ONNX Runtime core library in it
         * @param reason why this folder, for messages
         * @return the choice
         */
        public static Choice folder(Path folder, Path coreLibrary, String reason) {
            return new Choice(Optional.of(coreLibrary), reason, Optional.of(folder));
        }
    }

    /**
     * The library named by {@code ort_library} (a backend option or the {@code --ort-library} flag), else by
     * {@value #LIBRARY_ENV}, else the installed WebGPU runtime when the WebGPU provider is asked for, else any.
     *
     * @param option the backend option's value, if set
     * @param webGpuRequested whether the WebGPU provider is among the requested providers
     * @param home the flux2 home folder of installed runtimes
     * @return the choice
     * @throws RuntimeLibraryException when WebGPU is asked for, no library is named and the runtime is not installed
     *     or is corrupt
     */
    public static Choice choose(Optional<String> option, boolean webGpuRequested, Path home) {
        return choose(option, webGpuRequested ? Set.of(OrtProvider.WEBGPU) : Set.of(), home);
    }

    /**
     * The library named by {@code ort_library} (a backend option or the {@code --ort-library} flag), else by
     * {@value #LIBRARY_ENV}; else, when the WebGPU provider is asked for, the installed WebGPU runtime; when CUDA is
     * asked for, the folder named by ONNX Runtime's {@value CudaRuntime#NATIVE_PATH_PROPERTY}, else the
     * {@code onnxruntime_gpu} natives on the class path, else the installed CUDA runtime; else any.
     *
     * @param option the backend option's value, if set
     * @param requested the requested providers
     * @param home the flux2 home folder of installed runtimes
     * @return the choice
     * @throws RuntimeLibraryException when WebGPU and CUDA are both asked for (one library per JVM), or the runtime
     *     asked for is not installed or is corrupt, or the class path mixes the CPU and GPU jars
     */
    public static Choice choose(Optional<String> option, Set<OrtProvider> requested, Path home) {
        if (option.isPresent() && !option.get().isBlank()) {
            return new Choice(Optional.of(Path.of(option.get().trim())), "backend option ort_library");
        }
        String env = System.getenv(LIBRARY_ENV);
        if (env != null && !env.isBlank()) {
            return new Choice(Optional.of(Path.of(env.trim())), LIBRARY_ENV);
        }
        boolean webGpu = requested.contains(OrtProvider.WEBGPU);
        boolean cuda = requested.contains(OrtProvider.CUDA);
        if (webGpu && cuda) {
            throw new RuntimeLibraryException("the webgpu and cuda providers need different ONNX Runtime libraries"
                    + " (onnxruntime-node's WebGPU build, onnxruntime_gpu's CUDA build), and one JVM loads one: ask"
                    + " for one of them, or name a library that has both with --ort-library or " + LIBRARY_ENV);
        }
        if (webGpu) {
            return new Choice(Optional.of(WebGpuRuntime.locate(home)), "the installed WebGPU runtime");
        }
        if (cuda) {
            String folder = System.getProperty(CudaRuntime.NATIVE_PATH_PROPERTY);
            if (folder != null && !folder.isBlank()) {
                return new Choice(
                        Optional.empty(),
                        "the system property " + CudaRuntime.NATIVE_PATH_PROPERTY + " (" + folder + ")");
            }
            Optional<String> classpath = CudaRuntime.classpathNatives();
            if (classpath.isPresent()) {
                return new Choice(
                        Optional.empty(), "the onnxruntime_gpu natives on the class path (" + classpath.get() + ")");
            }
            Path dir = CudaRuntime.locate(home);
            return Choice.folder(dir, CudaRuntime.coreLibrary(dir), "the installed CUDA runtime");
        }
        return Choice.ANY;
    }

    /**
     * @param choice the library to run on
     * @return the process's environment, on that library
     * @throws RuntimeLibraryException when the library is missing, not a shared library, cannot be loaded, is of
     *     another version than the binding, or ONNX Runtime already runs on another library in this JVM
     */
    public static synchronized OrtEnvironment environment(Choice choice) {
        return environment(choice, GlobalThreadPool.DEFAULT);
    }

    /**
     * @param choice the library to run on
     * @param pool the shared thread pool to create the environment with, when this call creates it (ignored when
     *     the environment exists: see {@link #threadPool()})
     * @return the process's environment, on that library
     * @throws RuntimeLibraryException as {@link #environment(Choice)}
     */
    public static synchronized OrtEnvironment environment(Choice choice, GlobalThreadPool pool) {
        Objects.requireNonNull(pool, "pool");
        if (environment != null) {
            checkSame(choice);
            return environment;
        }
        Optional<Path> wanted = choice.library().map(p -> p.toAbsolutePath().normalize());
        String property = System.getProperty(LIBRARY_PROPERTY);
        String folderProperty = System.getProperty(CudaRuntime.NATIVE_PATH_PROPERTY);
        if (wanted.isPresent()) {
            Path lib = wanted.get();
            checkLoadable(lib, choice.reason());
            List<String> mapped = mappedOrtLibraries();
            if (!mapped.isEmpty() && mapped.stream().noneMatch(m -> samePath(m, lib))) {
                throw conflict(
                        choice,
                        lib,
                        "ONNX Runtime was initialised in this JVM before flux2-java, from "
                                + String.join(", ", mapped));
            }
            if (choice.nativeFolder().isPresent()) {
                Path folder = choice.nativeFolder().get().toAbsolutePath().normalize();
                if (folderProperty != null && !samePath(folderProperty, folder)) {
                    throw conflict(
                            choice,
                            lib,
                            "the system property " + CudaRuntime.NATIVE_PATH_PROPERTY + " names " + folderProperty);
                }
                if (property != null && !samePath(property, lib)) {
                    throw conflict(choice, lib, "the system property " + LIBRARY_PROPERTY + " names " + property);
                }
                // ONNX Runtime then loads its core, its JNI glue and its providers from this folder.
                System.setProperty(CudaRuntime.NATIVE_PATH_PROPERTY, folder.toString());
            } else {
                if (folderProperty != null) {
                    // ONNX Runtime would load every library from that folder, ignoring the library asked for.
                    throw conflict(
                            choice,
                            lib,
                            "the system property " + CudaRuntime.NATIVE_PATH_PROPERTY + " names the folder "
                                    + folderProperty + ", which ONNX Runtime loads instead");
                }
                if (property != null && !samePath(property, lib)) {
                    throw conflict(choice, lib, "the system property " + LIBRARY_PROPERTY + " names " + property);
                }
                System.setProperty(LIBRARY_PROPERTY, lib.toString());
            }
        }
        OrtEnvironment env;
        Optional<GlobalThreadPool> created = Optional.empty();
        try {
            try (OrtEnvironment.ThreadingOptions threading = threading(pool)) {
                env = OrtEnvironment.getEnvironment(logLevel(), OrtEnvironment.DEFAULT_NAME, threading);
                created = Optional.of(pool);
            } catch (IllegalStateException e) {
                if (!String.valueOf(e.getMessage()).contains("already exists")) {
                    throw e;
                }
                // Created before flux2-java (by the application): it has no shared pool, sessions keep their own.
                env = OrtEnvironment.getEnvironment();
            }
        } catch (OrtException | RuntimeException | LinkageError e) {
            throw new RuntimeLibraryException(
                    "ONNX Runtime cannot load its native library "
                            + wanted.map(Path::toString).orElse(property != null ? property : "from the jar")
                            + " (chosen by "
                            + choice.reason() + "): " + rootMessage(e),
                    e);
        }
        String version = env.getVersion();
        if (!RuntimePin.BINDING_VERSION.equals(version)) {
            throw new RuntimeLibraryException("the ONNX Runtime library "
                    + wanted.map(Path::toString).orElse("loaded")
                    + " (chosen by " + choice.reason() + ") is version " + version + ", but the Java binding is "
                    + RuntimePin.BINDING_VERSION + ": use a library of version " + RuntimePin.BINDING_VERSION);
        }
        environment = env;
        threadPool = created;
        loaded = wanted.isPresent()
                ? wanted
                : Optional.ofNullable(property)
                        .map(Path::of)
                        .or(() -> Optional.ofNullable(folderProperty).map(f -> Path.of(f, coreLibraryName())));
        loadedBecause = wanted.isPresent()
                ? choice.reason()
                : property != null
                        ? LIBRARY_PROPERTY
                        : folderProperty != null ? CudaRuntime.NATIVE_PATH_PROPERTY : choice.reason();
        LOG.debug("ONNX Runtime {} loaded from {} ({})", version, describeLoaded(), loadedBecause);
        return env;
    }

    /**
     * @return the environment on the library named by {@value #LIBRARY_ENV} when it is set, else on any library (the
     *     one loaded, else the jar's)
     */
    public static OrtEnvironment environment() {
        return environment(choose(Optional.empty(), false, Path.of(".")));
    }

    /**
     * @return the thread pool the environment shares between sessions; empty before the environment exists or when
     *     it was created outside this class
     */
    public static synchronized Optional<GlobalThreadPool> threadPool() {
        return environment == null ? Optional.empty() : threadPool;
    }

    private static OrtEnvironment.ThreadingOptions threading(GlobalThreadPool pool) throws OrtException {
        OrtEnvironment.ThreadingOptions threading = new OrtEnvironment.ThreadingOptions();
        try {
            if (pool.intraOpThreads() > 0) {
                threading.setGlobalIntraOpNumThreads(pool.intraOpThreads());
            }
            // Sessions run their nodes sequentially: an inter-op pool would only hold idle threads.
            threading.setGlobalInterOpNumThreads(1);
            threading.setGlobalSpinControl(pool.spinning());
            return threading;
        } catch (OrtException | RuntimeException e) {
            threading.close();
            throw e;
        }
    }

    /** @return the file name of ONNX Runtime's core library in the jar's native folders, for this OS */
    private static String coreLibraryName() {
        String os = System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT);
        return os.startsWith("windows")
                ? "onnxruntime.dll"
                : os.contains("mac") ? "libonnxruntime.dylib" : "libonnxruntime.so";
    }

    /**
     * @return whether ONNX Runtime runs on a library the user named ({@code ort_library}, {@value #LIBRARY_ENV}),
     *     whose CUDA libraries may differ from onnxruntime_gpu's
     */
    public static synchronized boolean loadedByName() {
        return environment != null
                && (loadedBecause.equals("backend option ort_library") || loadedBecause.equals(LIBRARY_ENV));
    }

    /** @return whether this class has created the environment (ONNX Runtime's native library is then fixed) */
    public static synchronized boolean initialised() {
        return environment != null;
    }

    /** @return the library ONNX Runtime runs on, for reports ({@code "the onnxruntime jar's"} when it is that) */
    public static synchronized String describeLoaded() {
        return loaded.map(Path::toString).orElse("the onnxruntime jar's own library");
    }

    private static void checkSame(Choice choice) {
        if (choice.library().isEmpty()) {
            return;
        }
        Path lib = choice.library().get().toAbsolutePath().normalize();
        if (loaded.isEmpty() || !samePath(loaded.get().toString(), lib)) {
            throw conflict(
                    choice, lib, "ONNX Runtime already runs on " + describeLoaded() + " (" + loadedBecause + ")");
        }
    }

    private static RuntimeLibraryException conflict(Choice choice, Path lib, String what) {
        return new RuntimeLibraryException("cannot run on the ONNX Runtime library " + lib + " (chosen by "
                + choice.reason() + "): " + what + ", and the native library is chosen once per JVM. Start a new JVM"
                + " for it, or use the same library everywhere in this one (FLUX2_ORT_LIBRARY, or build the first"
                + " pipeline with the same providers)");
    }

    private static boolean samePath(String a, Path b) {
        try {
            return Path.of(a).toRealPath().equals(b.toRealPath());
        } catch (IOException | RuntimeException e) {
            return Path.of(a)
                    .toAbsolutePath()
                    .normalize()
                    .equals(b.toAbsolutePath().normalize());
        }
    }

    /** A missing file or one that is no shared library fails here, before ONNX Runtime could fail obscurely. */
    /**
     * ONNX Runtime's log severity for this process: {@value #LOG_LEVEL_PROPERTY} = {@code warning} (the default),
     * {@code error} or {@code fatal}. Its logger writes ANSI colours whatever stderr is; the CLI asks for
     * {@code fatal} when stderr is not a terminal, as every error also reaches the caller as an exception.
     */
    private static OrtLoggingLevel logLevel() {
        String level = System.getProperty(LOG_LEVEL_PROPERTY, "warning").trim().toLowerCase(java.util.Locale.ROOT);
        return switch (level) {
            case "error" -> OrtLoggingLevel.ORT_LOGGING_LEVEL_ERROR;
            case "fatal" -> OrtLoggingLevel.ORT_LOGGING_LEVEL_FATAL;
            case "info" -> OrtLoggingLevel.ORT_LOGGING_LEVEL_INFO;
            default -> OrtLoggingLevel.ORT_LOGGING_LEVEL_WARNING;
        };
    }

    private static void checkLoadable(Path lib, String reason) {
        if (!Files.isRegularFile(lib)) {
            throw new RuntimeLibraryException(
                    "the ONNX Runtime library " + lib + " (chosen by " + reason + ") does not exist or is no file");
        }
        try {
            Optional<String> problem = SharedLibraryFile.problem(lib);
            if (problem.isPresent()) {
                throw new RuntimeLibraryException(
                        "the ONNX Runtime library " + lib + " (chosen by " + reason + ") " + problem.get());
            }
        } catch (IOException e) {
            throw new RuntimeLibraryException(
                    "cannot read the ONNX Runtime library " + lib + ": " + dev.flux2.spi.ModelFiles.reason(e), e);
        }
    }

    /** On Linux, the ONNX Runtime libraries mapped into this process (empty elsewhere or when none is). */
    static List<String> mappedOrtLibraries() {
        Path maps = Path.of("/proc/self/maps");
        List<String> out = new ArrayList<>();
        if (!Files.isReadable(maps)) {
            return out;
        }
        try {
            for (String line : Files.readAllLines(maps)) {
                int slash = line.indexOf('/');
                if (slash < 0) {
                    continue;
                }
                String path = line.substring(slash).replace(" (deleted)", "");
                String name = path.substring(path.lastIndexOf('/') + 1);
                if (name.startsWith("libonnxruntime.") && !out.contains(path)) {
                    out.add(path);
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("cannot read {}", maps, e);
        }
        return out;
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t == e ? String.valueOf(e.getMessage()) : e.getMessage() + ": " + t;
    }

    /**
     * Removes ONNX Runtime's shutdown hook that releases the environment at JVM exit. After the WebGPU provider has
     * been enabled (successfully or not) that release crashes the JVM in native code; the process is ending anyway,
     * so the operating system reclaims what the environment holds. Call before a GPU provider is first enabled.
     * Best effort: where the JDK's internals differ, it logs at debug level and leaves the hook in place. Idempotent.
     */
    public static synchronized void keepEnvironmentAtExit() {
        if (environment == null) {
            environment();
        }
        keepEnvironmentAtExit(Choice.ANY);
    }

    /**
     * {@link #keepEnvironmentAtExit()} on the environment of the chosen library.
     *
     * @param choice the library, should ONNX Runtime not be initialised yet
     */
    public static synchronized void keepEnvironmentAtExit(Choice choice) {
        if (exitReleaseDetached) {
            return;
        }
        // The hook exists once the environment does.
        environment(choice);
        try {
            Field uf = Class.forName("sun.misc.Unsafe").getDeclaredField("theUnsafe");
            uf.setAccessible(true);
            sun.misc.Unsafe unsafe = (sun.misc.Unsafe) uf.get(null);
            Field hooksField =
                    Class.forName("java.lang.ApplicationShutdownHooks").getDeclaredField("hooks");
            Object hooks = unsafe.getObject(unsafe.staticFieldBase(hooksField), unsafe.staticFieldOffset(hooksField));
            List<Thread> threads;
            synchronized (Class.forName("java.lang.ApplicationShutdownHooks")) {
                threads = new ArrayList<>(((Map<?, ?>) hooks)
                        .keySet().stream().map(Thread.class::cast).toList());
            }
            for (Thread t : threads) {
                Object task = runnableOf(unsafe, t);
                if (task != null && task.getClass().getName().equals(CLOSER_CLASS)) {
                    exitReleaseDetached = Runtime.getRuntime().removeShutdownHook(t);
                    LOG.debug("removed ONNX Runtime's environment release at exit: {}", exitReleaseDetached);
                }
            }
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            LOG.debug("cannot remove ONNX Runtime's environment release at exit", e);
        }
    }

    /** The thread's Runnable: {@code Thread.target} up to JDK 20, {@code Thread.holder.task} from JDK 21. */
    private static Object runnableOf(sun.misc.Unsafe unsafe, Thread t) throws ReflectiveOperationException {
        try {
            Field target = Thread.class.getDeclaredField("target");
            return unsafe.getObject(t, unsafe.objectFieldOffset(target));
        } catch (NoSuchFieldException e) {
            Field holderField = Thread.class.getDeclaredField("holder");
            Object holder = unsafe.getObject(t, unsafe.objectFieldOffset(holderField));
            Field task = holder.getClass().getDeclaredField("task");
            return unsafe.getObject(holder, unsafe.objectFieldOffset(task));
        }
    }

    /** @return whether ONNX Runtime's release at exit has been removed */
    public static synchronized boolean environmentKeptAtExit() {
        return exitReleaseDetached;
    }
}
