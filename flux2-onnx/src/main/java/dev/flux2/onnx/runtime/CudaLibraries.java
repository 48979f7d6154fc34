package dev.flux2.onnx.runtime;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Finds the CUDA libraries ONNX Runtime's CUDA provider links ({@link CudaLibrary}) before the provider is loaded,
 * and names every one the dynamic loader would not find: where the loader looks (Linux: {@code LD_LIBRARY_PATH},
 * {@code ldconfig}'s cache, the system library folders; Windows: {@code PATH}), and where a user may have it without
 * the loader knowing ({@code CUDA_PATH}, {@code CUDA_HOME}, {@code /usr/local/cuda-12*}, the folders of pip's
 * {@code nvidia-*-cu12} wheels), in which case the message says which folder to add. A library found only in another
 * CUDA major version ({@code libcublas.so.13}: CUDA 13's versioned symbols do not serve the CUDA 12 build) is named
 * as such, also when a file of the right name is a link to it. Stateless; {@link #check()} reads the environment.
 */
public final class CudaLibraries {
    /**
     * The environment variable that turns the check off ({@code off}): for a machine where the libraries are found in
     * a way this search does not know (the check names its findings; ONNX Runtime's own error is what follows).
     */
    public static final String CHECK_ENV = "FLUX2_CUDA_LIBRARY_CHECK";

    private static final long LDCONFIG_TIMEOUT_SECONDS = 5;

    private CudaLibraries() {}

    /**
     * Where to look.
     *
     * @param windows whether the names and folders are Windows'
     * @param loaderPath the folders the dynamic loader searches, in order, with where each comes from
     * @param loaderCache soname → file, from {@code ldconfig -p} (empty on Windows)
     * @param elsewhere folders where a user may have the libraries that the loader does not search, with where each
     *     comes from
     */
    record SearchPath(
            boolean windows, Map<Path, String> loaderPath, Map<String, Path> loaderCache, Map<Path, String> elsewhere) {
        /** Copies. */
        SearchPath {
            loaderPath = new LinkedHashMap<>(loaderPath);
            loaderCache = Map.copyOf(loaderCache);
            elsewhere = new LinkedHashMap<>(elsewhere);
        }
    }

    /**
     * What was found for one library.
     *
     * @param library the library
     * @param usable where the loader finds it, if it does
     * @param offPath a folder holding it that the loader does not search, if any
     * @param otherVersion a file of the same library of another CUDA major version, if any
     */
    record Finding(CudaLibrary library, Optional<Path> usable, Optional<Path> offPath, Optional<Path> otherVersion) {}

    /**
     * Checks the libraries of this machine, unless {@value #CHECK_ENV} is {@code off}.
     *
     * @throws CudaUnavailableException naming every missing library, where it was looked for and how to get it
     */
    public static void check() {
        if (checkOff()) {
            return;
        }
        SearchPath path = systemPath();
        problem(search(path), path).ifPresent(m -> {
            throw new CudaUnavailableException(m);
        });
    }

    /** @return whether {@value #CHECK_ENV} is {@code off}, so that {@link #check()} checks nothing */
    public static boolean checkOff() {
        return "off".equalsIgnoreCase(String.valueOf(System.getenv(CHECK_ENV)).trim());
    }

    /**
     * @return where the loader finds each library on this machine, for reports ({@code libcudart.so.12 path, …}),
     *     then the ones this search does not find ({@code not found by this search: libcuda.so.1})
     */
    public static String describeFound() {
        return describe(search(systemPath()), systemPath().windows());
    }

    static String describe(List<Finding> findings, boolean windows) {
        List<String> found = findings.stream()
                .filter(f -> f.usable().isPresent())
                .map(f -> f.library().fileName(windows) + " " + f.usable().get())
                .toList();
        List<String> missing = findings.stream()
                .filter(f -> f.usable().isEmpty())
                .map(f -> f.library().fileName(windows))
                .toList();
        return String.join(", ", found)
                + (missing.isEmpty()
                        ? ""
                        : (found.isEmpty() ? "" : "; ") + "not found by this search: " + String.join(", ", missing));
    }

    /**
     * @param path where to look
     * @return one finding per library, in {@link CudaLibrary} order
     */
    static List<Finding> search(SearchPath path) {
        List<Finding> out = new ArrayList<>();
        for (CudaLibrary lib : CudaLibrary.values()) {
            String name = lib.fileName(path.windows());
            Optional<Path> usable = Optional.empty();
            Optional<Path> other = Optional.empty();
            List<Path> candidates = new ArrayList<>();
            path.loaderPath().keySet().forEach(d -> candidates.add(d.resolve(name)));
            Optional.ofNullable(path.loaderCache().get(name)).ifPresent(candidates::add);
            for (Path c : candidates) {
                if (Files.isRegularFile(c)) {
                    if (sameMajor(c, lib, path.windows())) {
                        usable = Optional.of(c);
                        break;
                    }
                    other = other.or(() -> Optional.of(c));
                }
            }
            Optional<Path> offPath = Optional.empty();
            if (usable.isEmpty()) {
                for (Path d : path.elsewhere().keySet()) {
                    Path c = d.resolve(name);
                    if (Files.isRegularFile(c) && sameMajor(c, lib, path.windows())) {
                        offPath = Optional.of(d);
                        break;
                    }
                }
                if (other.isEmpty()) {
                    other = otherMajor(lib, path);
                }
            }
            out.add(new Finding(lib, usable, offPath, usable.isPresent() ? Optional.empty() : other));
        }
        return out;
    }

    /**
     * @param findings what {@link #search} found
     * @param path where it looked
     * @return the message naming every library the loader would not find, empty when it finds all
     */
    static Optional<String> problem(List<Finding> findings, SearchPath path) {
        List<String> missing = new ArrayList<>();
        Set<Path> toAdd = new LinkedHashSet<>();
        for (Finding f : findings) {
            if (f.usable().isPresent()) {
                continue;
            }
            String name = f.library().fileName(path.windows());
            StringBuilder sb = new StringBuilder(name)
                    .append(" (")
                    .append(f.library().what())
                    .append(")");
            if (f.offPath().isPresent()) {
                sb.append(" is in ")
                        .append(f.offPath().get())
                        .append(" (")
                        .append(path.elsewhere().get(f.offPath().get()))
                        .append("), which the loader does not search");
                toAdd.add(f.offPath().get());
            } else {
                sb.append(" is not found");
                f.otherVersion()
                        .ifPresent(o -> sb.append("; ")
                                .append(o)
                                .append(" is another CUDA version's, which")
                                .append(" does not serve: onnxruntime_gpu ")
                                .append(RuntimePin.BINDING_VERSION)
                                .append(" links CUDA 12's by versioned symbols"));
                sb.append("; get it from ").append(String.join(", ", f.library().ways()));
            }
            missing.add(sb.toString());
        }
        if (missing.isEmpty()) {
            return Optional.empty();
        }
        boolean noDriver = findings.stream()
                .anyMatch(f -> f.library() == CudaLibrary.DRIVER && f.usable().isEmpty());
        String variable = path.windows() ? "PATH" : "LD_LIBRARY_PATH";
        String fix = toAdd.isEmpty()
                ? ""
                : " Add the folders to the loader's path: "
                        + (path.windows()
                                ? "set PATH=" + join(toAdd, ";") + ";%PATH%"
                                : "export LD_LIBRARY_PATH=" + join(toAdd, ":") + ":$LD_LIBRARY_PATH")
                        + ".";
        return Optional.of("the CUDA provider (onnxruntime_gpu " + RuntimePin.BINDING_VERSION + ") cannot load: "
                + (noDriver ? "no NVIDIA driver found (is there an NVIDIA GPU?); " : "")
                + missing.size() + " of its " + findings.size() + " libraries missing: " + String.join("; ", missing)
                + "." + fix + " Looked in " + variable + ", "
                + (path.windows() ? "" : "ldconfig's cache, ")
                + String.join(
                        ", ", path.loaderPath().values().stream().distinct().toList())
                + (path.elsewhere().isEmpty()
                        ? ""
                        : ", "
                                + String.join(
                                        ", ",
                                        path.elsewhere().values().stream()
                                                .distinct()
                                                .toList()))
                + " (docs/gpu.md, \"CUDA libraries\").");
    }

    private static String join(Set<Path> paths, String sep) {
        return String.join(sep, paths.stream().map(Path::toString).toList());
    }

    /** A file of the right name that is a link to another major version (libcublas.so.12 → libcublas.so.13.0.0). */
    private static boolean sameMajor(Path file, CudaLibrary lib, boolean windows) {
        if (windows || !lib.versionedSymbols()) {
            return true;
        }
        try {
            String real = file.toRealPath().getFileName().toString();
            String name = lib.fileName(false);
            return !real.startsWith(lib.stem(false)) || real.equals(name) || real.startsWith(name + ".");
        } catch (IOException e) {
            return true;
        }
    }

    /** The same library of another major version, in any folder searched. */
    private static Optional<Path> otherMajor(CudaLibrary lib, SearchPath path) {
        if (!lib.versionedSymbols()) {
            return Optional.empty();
        }
        String stem = lib.stem(path.windows());
        String name = lib.fileName(path.windows());
        List<Path> dirs = new ArrayList<>(path.loaderPath().keySet());
        dirs.addAll(path.elsewhere().keySet());
        for (Path d : dirs) {
            if (!Files.isDirectory(d)) {
                continue;
            }
            try (Stream<Path> s = Files.list(d)) {
                Optional<Path> hit = s.filter(p -> {
                            String n = p.getFileName().toString();
                            return n.startsWith(stem)
                                    && !n.equals(name)
                                    && !n.startsWith(name + ".")
                                    && n.length() > stem.length()
                                    && Character.isDigit(n.charAt(stem.length()));
                        })
                        .sorted()
                        .findFirst();
                if (hit.isPresent()) {
                    return hit;
                }
            } catch (IOException e) {
                // An unreadable folder holds nothing for us.
            }
        }
        for (Map.Entry<String, Path> e : path.loaderCache().entrySet()) {
            if (e.getKey().startsWith(stem) && !e.getKey().equals(name)) {
                return Optional.of(e.getValue());
            }
        }
        return Optional.empty();
    }

    /** This machine's search path, from the environment, {@code ldconfig -p} and the usual install folders. */
    static SearchPath systemPath() {
        boolean windows = System.getProperty("os.name", "").startsWith("Windows");
        Map<Path, String> loader = new LinkedHashMap<>();
        Map<Path, String> elsewhere = new LinkedHashMap<>();
        if (windows) {
            addAll(loader, System.getenv("PATH"), ";", "PATH");
            for (String v : new String[] {"CUDA_PATH", "CUDA_HOME"}) {
                env(v).ifPresent(p -> elsewhere.putIfAbsent(Path.of(p, "bin"), v));
            }
            return new SearchPath(true, loader, Map.of(), elsewhere);
        }
        addAll(loader, System.getenv("LD_LIBRARY_PATH"), ":", "LD_LIBRARY_PATH");
        for (String d : new String[] {
            "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"
        }) {
            loader.putIfAbsent(Path.of(d), "the system library folders");
        }
        for (String v : new String[] {"CUDA_PATH", "CUDA_HOME"}) {
            env(v).ifPresent(p -> {
                for (String sub : new String[] {"lib64", "lib", "targets/x86_64-linux/lib"}) {
                    elsewhere.putIfAbsent(Path.of(p, sub), v);
                }
            });
        }
        for (Path cuda : list(Path.of("/usr/local"), "cuda-12")) {
            elsewhere.putIfAbsent(cuda.resolve("lib64"), "/usr/local/cuda-12*");
            elsewhere.putIfAbsent(cuda.resolve("targets/x86_64-linux/lib"), "/usr/local/cuda-12*");
        }
        elsewhere.putIfAbsent(Path.of("/usr/local/cuda/lib64"), "/usr/local/cuda");
        for (Path site : sitePackages()) {
            for (CudaLibrary lib : CudaLibrary.values()) {
                if (!lib.wheelFolder().isEmpty()) {
                    elsewhere.putIfAbsent(
                            site.resolve("nvidia").resolve(lib.wheelFolder()).resolve("lib"),
                            "pip's nvidia-*-cu12 wheels");
                }
            }
        }
        env("CONDA_PREFIX").ifPresent(p -> elsewhere.putIfAbsent(Path.of(p, "lib"), "CONDA_PREFIX"));
        return new SearchPath(false, loader, ldconfigCache(), elsewhere);
    }

    private static void addAll(Map<Path, String> into, String value, String sep, String from) {
        if (value == null) {
            return;
        }
        for (String p : value.split(sep)) {
            if (!p.isBlank()) {
                try {
                    into.putIfAbsent(Path.of(p.trim()), from);
                } catch (RuntimeException e) {
                    // Not a path: the loader ignores it too.
                }
            }
        }
    }

    private static Optional<String> env(String name) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? Optional.empty() : Optional.of(v.trim());
    }

    /** Python's site-packages and dist-packages folders of virtual environments, conda, the user and the system. */
    private static List<Path> sitePackages() {
        List<Path> roots = new ArrayList<>();
        env("VIRTUAL_ENV").ifPresent(v -> roots.add(Path.of(v, "lib")));
        env("CONDA_PREFIX").ifPresent(v -> roots.add(Path.of(v, "lib")));
        roots.add(Path.of(System.getProperty("user.home"), ".local", "lib"));
        roots.add(Path.of("/usr/local/lib"));
        roots.add(Path.of("/usr/lib"));
        roots.add(Path.of("/opt/conda/lib"));
        List<Path> out = new ArrayList<>();
        for (Path root : roots) {
            for (Path py : list(root, "python3")) {
                out.add(py.resolve("site-packages"));
                out.add(py.resolve("dist-packages"));
            }
        }
        return out;
    }

    private static List<Path> list(Path dir, String prefix) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().startsWith(prefix) && Files.isDirectory(p))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    /** soname → file from {@code ldconfig -p}; empty when ldconfig cannot run (the system folders still count). */
    private static Map<String, Path> ldconfigCache() {
        for (String exe : new String[] {"/sbin/ldconfig", "/usr/sbin/ldconfig", "ldconfig"}) {
            if (exe.startsWith("/") && !Files.isExecutable(Path.of(exe))) {
                continue;
            }
            try {
                Process p =
                        new ProcessBuilder(exe, "-p").redirectErrorStream(true).start();
                byte[] out = p.getInputStream().readAllBytes();
                if (!p.waitFor(LDCONFIG_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    continue;
                }
                return parseLdconfig(new String(out, StandardCharsets.UTF_8));
            } catch (IOException e) {
                // Try the next one.
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Map.of();
            }
        }
        return Map.of();
    }

    /**
     * @param output {@code ldconfig -p}'s output
     * @return soname → file, an x86-64 entry before one without an architecture, other architectures left out
     */
    static Map<String, Path> parseLdconfig(String output) {
        Map<String, Path> m = new LinkedHashMap<>();
        for (String line : output.split("\n")) {
            int arrow = line.indexOf(" => ");
            int paren = line.indexOf(" (");
            if (arrow < 0 || paren < 0 || paren > arrow) {
                continue;
            }
            String flags = line.substring(paren + 2, line.indexOf(')', paren));
            String name = line.substring(0, paren).trim();
            Path file = Path.of(line.substring(arrow + 4).trim());
            if (flags.contains("x86-64")) {
                m.put(name, file);
            } else if (!flags.contains(",")) {
                // A single-architecture system lists no architecture; on x86-64 that is a 32-bit library.
                m.putIfAbsent(name, file);
            }
        }
        return m;
    }
}
