package dev.flux2.onnx.runtime;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * ONNX Runtime's CUDA natives of exactly the Java binding's version, taken from the Maven artifact
 * {@code com.microsoft.onnxruntime:onnxruntime_gpu} of that version (the {@code onnxruntime} jar has no CUDA provider,
 * and its JNI library refuses {@code addCUDA}): the jar's whole native folder of this platform (core, JNI, shared and
 * CUDA provider libraries; not TensorRT's, see {@link CudaRuntimePin}) installed into
 * {@code $FLUX2_HOME/runtime/<ort-version>/<os-arch>-cuda/} by {@link #install} and found, verified, by
 * {@link #locate}; ONNX Runtime then loads every library of that folder (its system property
 * {@value #NATIVE_PATH_PROPERTY}). Every file is checked against the size and sha512 pinned for its version and
 * platform before it is moved into place and again before it is loaded; the install is a rename of a complete staging
 * folder, so a killed install leaves no half runtime; extraction is bounded by the pinned sizes. The only network
 * access is Maven's ({@code mvn dependency:copy}), when no {@code from} is given and the local repository lacks the
 * jar. An application that depends on {@code onnxruntime_gpu} instead of {@code onnxruntime} needs none of this:
 * {@link #classpathNatives()} finds its natives. Stateless and thread-safe. docs/gpu.md.
 */
public final class CudaRuntime {
    /** ONNX Runtime's system property naming the folder it loads all its native libraries from. */
    public static final String NATIVE_PATH_PROPERTY = "onnxruntime.native.path";

    private static final long MAVEN_TIMEOUT_MINUTES = 30;

    private CudaRuntime() {}

    /**
     * @param home the flux2 home folder ({@link WebGpuRuntime#defaultHome()})
     * @return where this platform's CUDA runtime of the binding's version lives:
     *     {@code home/runtime/<version>/<os-arch>-cuda}
     * @throws RuntimeLibraryException when this platform has no CUDA build
     */
    public static Path folder(Path home) {
        return folder(home, CudaRuntimePin.forBinding(), platform());
    }

    static Path folder(Path home, CudaRuntimePin pin, OrtPlatform platform) {
        return home.resolve("runtime").resolve(pin.ortVersion()).resolve(CudaRuntimePin.folderName(platform));
    }

    /**
     * Installs the CUDA runtime of the binding's version for this platform, unless a verified copy is already there;
     * repairs a corrupt or incomplete one.
     *
     * @param home the flux2 home folder
     * @param from an {@code onnxruntime_gpu-<version>.jar}, or a folder holding the jar's native files (the jar's
     *     {@code ai/onnxruntime/native/<os-arch>} folder, or an unpacked jar); empty to take the jar from the local
     *     Maven repository, else from Maven ({@code mvn dependency:copy})
     * @return the installation; its {@code library} is the ONNX Runtime core library in the folder
     * @throws RuntimeLibraryException when the platform has no CUDA build, Maven fails, or a file is missing, too
     *     large, or does not match its pinned size and sha512
     */
    public static RuntimeInstallation install(Path home, Optional<Path> from) {
        return install(home, from, CudaRuntimePin.forBinding(), platform(), MavenFetch.SYSTEM);
    }

    /**
     * @param home the flux2 home folder
     * @return the verified folder of the binding's version for this platform
     * @throws RuntimeLibraryException when it is not installed (naming any other versions that are), or a file does
     *     not match its pinned size and sha512
     */
    public static Path locate(Path home) {
        return locate(home, CudaRuntimePin.forBinding(), platform());
    }

    /**
     * @param folder an installed CUDA runtime folder ({@link #locate})
     * @return the ONNX Runtime core library in it
     */
    public static Path coreLibrary(Path folder) {
        return folder.resolve(CudaRuntimePin.forBinding().nativesFor(platform()).coreLibrary());
    }

    /**
     * The GPU natives of an {@code onnxruntime_gpu} jar on the class path (ONNX Runtime's own way to get CUDA): its
     * native folder for this platform with the core, JNI, shared and CUDA provider libraries.
     *
     * @return where they are (the jar or folder), if the class path has them
     * @throws RuntimeLibraryException when the class path holds the CUDA provider but ONNX Runtime would load its core
     *     library from another jar (both {@code onnxruntime} and {@code onnxruntime_gpu} on the class path)
     */
    public static Optional<String> classpathNatives() {
        Optional<OrtPlatform> platform = OrtPlatform.current();
        if (platform.isEmpty() || !CudaRuntimePin.forBinding().natives().containsKey(platform.get())) {
            return Optional.empty();
        }
        return classpathNatives(
                ai.onnxruntime.OrtEnvironment.class.getClassLoader(),
                CudaRuntimePin.forBinding().nativesFor(platform.get()));
    }

    static Optional<String> classpathNatives(ClassLoader loader, CudaRuntimePin.Natives natives) {
        URL provider = loader.getResource(natives.entry(natives.cudaProvider()));
        if (provider == null) {
            return Optional.empty();
        }
        String home = container(provider, natives.entry(natives.cudaProvider()));
        List<String> missing = new ArrayList<>();
        for (CudaRuntimePin.PinnedFile f : natives.files()) {
            URL url = loader.getResource(natives.entry(f.name()));
            if (url == null) {
                missing.add(f.name());
            } else if (!container(url, natives.entry(f.name())).equals(home)) {
                throw new RuntimeLibraryException("the class path holds ONNX Runtime's CUDA provider in " + home
                        + ", but ONNX Runtime would load " + f.name() + " from "
                        + container(url, natives.entry(f.name()))
                        + " (found first): the class path holds two ONNX Runtime jars. Keep only"
                        + " com.microsoft.onnxruntime:onnxruntime_gpu (exclude com.microsoft.onnxruntime:onnxruntime"
                        + " where flux2-onnx brings it, docs/gpu.md)");
            }
        }
        if (!missing.isEmpty()) {
            throw new RuntimeLibraryException("the class path holds ONNX Runtime's CUDA provider in " + home
                    + " but not " + missing + " beside it (ai/onnxruntime/native/" + natives.jarFolder()
                    + "/): use the com.microsoft.onnxruntime:onnxruntime_gpu jar as it is published");
        }
        return Optional.of(home);
    }

    /** The jar ({@code jar:file:/x.jar!/entry}) or folder an entry was found in. */
    private static String container(URL url, String entry) {
        String s = url.toString();
        if (s.startsWith("jar:") && s.contains("!/")) {
            return s.substring(4, s.indexOf("!/"));
        }
        return s.endsWith(entry) ? s.substring(0, s.length() - entry.length()) : s;
    }

    static OrtPlatform platform() {
        CudaRuntimePin pin = CudaRuntimePin.forBinding();
        return OrtPlatform.current()
                .filter(p -> pin.natives().containsKey(p))
                .orElseThrow(() -> new RuntimeLibraryException("no CUDA build of " + pin.coordinates() + " for "
                        + OrtPlatform.describeCurrent() + " (builds: "
                        + pin.natives().keySet().stream()
                                .map(OrtPlatform::key)
                                .sorted()
                                .toList()
                        + "); name another ONNX Runtime build with FLUX2_ORT_LIBRARY or --ort-library"));
    }

    static Path locate(Path home, CudaRuntimePin pin, OrtPlatform platform) {
        Path dir = folder(home, pin, platform);
        if (!Files.isDirectory(dir)) {
            throw new RuntimeLibraryException("the CUDA runtime (" + pin.coordinates() + ", " + platform.key()
                    + ") is not installed in " + dir + RuntimeFolders.otherVersions(home, pin.ortVersion())
                    + ": run `flux2 runtime install cuda`, or depend on " + pin.coordinates() + " instead of"
                    + " com.microsoft.onnxruntime:onnxruntime (docs/gpu.md)");
        }
        verify(
                dir,
                pin,
                platform,
                "installed CUDA runtime in " + dir,
                "run `flux2 runtime install cuda` again to repair it");
        return dir;
    }

    /** Checks every pinned file of a folder, sizes first; throws naming the first that is missing or differs. */
    private static void verify(Path dir, CudaRuntimePin pin, OrtPlatform platform, String what, String fix) {
        for (CudaRuntimePin.PinnedFile f : pin.nativesFor(platform).files()) {
            Path file = dir.resolve(f.name());
            if (!Files.isRegularFile(file)) {
                throw new RuntimeLibraryException(what + " is incomplete: " + file + " is missing; " + fix);
            }
            long size;
            try {
                size = Files.size(file);
            } catch (IOException e) {
                throw new RuntimeLibraryException("cannot read " + file + ": " + e, e);
            }
            String expected = pin.artifactId() + " " + pin.ortVersion() + ", " + platform.key();
            if (size != f.size()) {
                throw new RuntimeLibraryException(what + " is corrupt or of another build: " + file + " has " + size
                        + " bytes, expected " + f.size() + " (" + expected + "); " + fix);
            }
            String found = RuntimeFolders.sha512(file);
            if (!found.equals(f.sha512())) {
                throw new RuntimeLibraryException(what + " is corrupt or of another build: " + file + " has sha512 "
                        + RuntimeFolders.abbreviate(found) + ", expected " + RuntimeFolders.abbreviate(f.sha512())
                        + " (" + expected + "); " + fix);
            }
        }
    }

    private static boolean isValid(Path dir, CudaRuntimePin pin, OrtPlatform platform) {
        try {
            verify(dir, pin, platform, "", "");
            return true;
        } catch (RuntimeLibraryException e) {
            return false;
        }
    }

    static RuntimeInstallation install(
            Path home, Optional<Path> from, CudaRuntimePin pin, OrtPlatform platform, MavenFetch maven) {
        CudaRuntimePin.Natives natives = pin.nativesFor(platform);
        Path target = folder(home, pin, platform);
        String key = CudaRuntimePin.folderName(platform);
        Path library = target.resolve(natives.coreLibrary());
        if (Files.isDirectory(target) && isValid(target, pin, platform)) {
            return new RuntimeInstallation(pin.ortVersion(), key, target, library, false, "already installed");
        }
        Path staging = RuntimeFolders.staging(target, key);
        try {
            String source = gather(from, pin, natives, maven, staging);
            RuntimeFolders.deleteTree(staging.resolve(".download"));
            verify(staging, pin, platform, "the " + source, "use the published " + pin.coordinates() + " jar");
            writeRecord(staging, pin, platform, source);
            RuntimeFolders.moveIntoPlace(staging, target, key, () -> isValid(target, pin, platform));
            return new RuntimeInstallation(pin.ortVersion(), key, target, library, true, source);
        } finally {
            RuntimeFolders.deleteTree(staging);
        }
    }

    /** Puts every pinned file of the platform into {@code staging}; returns a description of the source. */
    private static String gather(
            Optional<Path> from, CudaRuntimePin pin, CudaRuntimePin.Natives natives, MavenFetch maven, Path staging) {
        try {
            if (from.isEmpty()) {
                Path jar = maven.fetch(pin, Files.createDirectory(staging.resolve(".download")));
                String sha = RuntimeFolders.sha512(jar);
                if (!sha.equals(pin.jarSha512())) {
                    throw new RuntimeLibraryException("the Maven artifact " + pin.coordinates() + " (" + jar
                            + ") has sha512 " + RuntimeFolders.abbreviate(sha) + ", expected "
                            + RuntimeFolders.abbreviate(pin.jarSha512())
                            + " (is the Maven repository a mirror that altered it?)");
                }
                extractJar(jar, natives, staging);
                return "Maven artifact " + pin.coordinates() + " (" + jar + ")";
            }
            Path src = from.get();
            if (Files.isRegularFile(src)) {
                extractJar(src, natives, staging);
                return "jar " + src;
            }
            if (Files.isDirectory(src)) {
                copyFromFolder(src, natives, staging);
                return "folder " + src;
            }
            throw new RuntimeLibraryException("--from " + src + ": " + RuntimeFolders.whyNoSource(src) + " (expected "
                    + pin.artifactId() + "-" + pin.ortVersion() + ".jar or a folder holding its "
                    + natives.jarFolder() + " native files)");
        } catch (IOException e) {
            throw new RuntimeLibraryException("installing the CUDA runtime failed: " + e, e);
        }
    }

    private static void extractJar(Path jar, CudaRuntimePin.Natives natives, Path staging) {
        Map<String, JarNatives.Wanted> wanted = new LinkedHashMap<>();
        for (CudaRuntimePin.PinnedFile f : natives.files()) {
            wanted.put(natives.entry(f.name()), new JarNatives.Wanted(staging.resolve(f.name()), f.size()));
        }
        Set<String> missing;
        try {
            missing = JarNatives.extract(jar, wanted, natives.totalBytes());
        } catch (IOException e) {
            throw new RuntimeLibraryException("cannot install from " + jar + ": " + e.getMessage(), e);
        }
        if (!missing.isEmpty()) {
            throw new RuntimeLibraryException(jar + " has no " + String.join(", ", missing)
                    + " (is it the com.microsoft.onnxruntime:onnxruntime_gpu jar? the onnxruntime jar has no CUDA"
                    + " provider)");
        }
    }

    private static void copyFromFolder(Path src, CudaRuntimePin.Natives natives, Path staging) throws IOException {
        List<Path> roots = List.of(
                src, src.resolve(natives.jarFolder()), src.resolve("ai/onnxruntime/native/" + natives.jarFolder()));
        for (CudaRuntimePin.PinnedFile f : natives.files()) {
            Optional<Path> found = roots.stream()
                    .map(r -> r.resolve(f.name()))
                    .filter(Files::isRegularFile)
                    .findFirst();
            if (found.isEmpty()) {
                throw new RuntimeLibraryException(
                        "--from " + src + " holds no " + f.name() + " (looked in " + roots + ")");
            }
            long size = Files.size(found.get());
            if (size != f.size()) {
                // Checked before copying: a wrong file is not copied (nor a huge one).
                throw new RuntimeLibraryException("--from " + src + ": " + found.get() + " has " + size
                        + " bytes, expected " + f.size() + " (" + natives.jarFolder() + " of the onnxruntime_gpu jar"
                        + " of the binding's version)");
            }
            try (var in = Files.newInputStream(found.get())) {
                // At most the pinned size, even if the file grows meanwhile.
                try (var out = Files.newOutputStream(staging.resolve(f.name()))) {
                    in.transferTo(new BoundedOutput(out, f.size(), found.get()));
                }
            }
        }
    }

    private static void writeRecord(Path staging, CudaRuntimePin pin, OrtPlatform platform, String source) {
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode record = mapper.createObjectNode();
        record.put("ort_version", pin.ortVersion());
        record.put("platform", CudaRuntimePin.folderName(platform));
        record.put("artifact", pin.coordinates());
        record.put("source", source);
        ObjectNode files = record.putObject("sha512");
        pin.nativesFor(platform).files().forEach(f -> files.put(f.name(), f.sha512()));
        try {
            Files.writeString(
                    staging.resolve(WebGpuRuntime.RECORD_FILE),
                    mapper.writerWithDefaultPrettyPrinter().writeValueAsString(record) + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** An output that refuses bytes past a limit. */
    private static final class BoundedOutput extends java.io.FilterOutputStream {
        private final long limit;
        private final Path source;
        private long written;

        BoundedOutput(java.io.OutputStream out, long limit, Path source) {
            super(out);
            this.limit = limit;
            this.source = source;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            written += len;
            if (written > limit) {
                throw new IOException(source + " grew past " + limit + " bytes while it was copied");
            }
            out.write(b, off, len);
        }
    }

    /** Puts the Maven artifact's jar into a folder. */
    @FunctionalInterface
    interface MavenFetch {
        /** The local repository's copy, else {@code mvn dependency:copy} with the system's Maven. */
        MavenFetch SYSTEM = CudaRuntime::mavenFetch;

        /**
         * @param pin the artifact
         * @param folder an empty folder Maven may copy into
         * @return the jar
         * @throws IOException when it cannot be read or written
         */
        Path fetch(CudaRuntimePin pin, Path folder) throws IOException;
    }

    private static Path mavenFetch(CudaRuntimePin pin, Path folder) throws IOException {
        String file = pin.artifactId() + "-" + pin.ortVersion() + ".jar";
        Path local = Path.of(System.getProperty("user.home"), ".m2", "repository")
                .resolve(pin.groupId().replace('.', '/'))
                .resolve(pin.artifactId())
                .resolve(pin.ortVersion())
                .resolve(file);
        if (Files.isRegularFile(local)) {
            return local;
        }
        String mvn = System.getProperty("os.name", "").startsWith("Windows") ? "mvn.cmd" : "mvn";
        Path log = folder.resolve(".mvn.log");
        ProcessBuilder pb = new ProcessBuilder(
                        mvn,
                        "-B",
                        "-q",
                        "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy",
                        "-Dartifact=" + pin.coordinates(),
                        "-DoutputDirectory=" + folder)
                .directory(folder.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            throw new RuntimeLibraryException("cannot run Maven (" + e.getMessage() + "): install Maven, or fetch "
                    + pin.coordinates() + " elsewhere and pass the jar with --from");
        }
        try {
            if (!p.waitFor(MAVEN_TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new RuntimeLibraryException(
                        "Maven did not fetch " + pin.coordinates() + " in " + MAVEN_TIMEOUT_MINUTES + " minutes");
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new RuntimeLibraryException("fetching " + pin.coordinates() + " was interrupted");
        }
        String out = Files.readString(log, StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            String tail = out.length() > 600 ? out.substring(out.length() - 600) : out;
            throw new RuntimeLibraryException("Maven could not fetch " + pin.coordinates() + " (exit code "
                    + p.exitValue() + "): " + tail.strip() + " (or pass a downloaded jar with --from)");
        }
        try (Stream<Path> s = Files.list(folder)) {
            return s.filter(f -> f.getFileName().toString().equals(file))
                    .findFirst()
                    .orElseThrow(() -> new RuntimeLibraryException(
                            "Maven wrote no " + file + " into " + folder + ": " + out.strip()));
        }
    }
}
