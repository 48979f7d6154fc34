package dev.flux2.onnx.runtime;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The WebGPU-capable ONNX Runtime native library of exactly the Java binding's version, taken from the official
 * {@code onnxruntime-node} package of that version (the Maven {@code onnxruntime} jar has no WebGPU provider):
 * installed into {@code $FLUX2_HOME/runtime/<ort-version>/<os-arch>/} by {@link #install} and found, verified, by
 * {@link #locate}. Every installed file is checked against the sha512 pinned for its version and platform before it
 * is moved into place and again before it is loaded; the install is a rename of a complete staging folder, so a
 * killed install leaves no half runtime. The only network access is {@code npm pack}, when no {@code from} is
 * given. Stateless and thread-safe (two installs at once end with one verified copy). docs/gpu.md.
 */
public final class WebGpuRuntime {
    /** The most bytes a package's {@code package.json} may have (onnxruntime-node's is about 1 KB). */
    static final long MAX_PACKAGE_JSON_BYTES = 1L << 20;

    /**
     * The most bytes one runtime library may have: far above any ONNX Runtime library (no file of the pinned
     * package is near it), so that a small tarball inflating to gigabytes stops before the disk fills rather than
     * at the sha512 check after it.
     */
    static final long MAX_LIBRARY_BYTES = 512L << 20;

    /** The file, in an installed runtime's folder, that records what was installed from where. */
    static final String RECORD_FILE = "flux2-runtime.json";

    private static final long NPM_TIMEOUT_MINUTES = 15;

    private WebGpuRuntime() {}

    /** @return the ONNX Runtime version of the Java binding, which the runtime must match */
    public static String ortVersion() {
        return RuntimePin.BINDING_VERSION;
    }

    /**
     * @return {@code $FLUX2_HOME}, else {@code $XDG_CACHE_HOME/flux2-java}, else {@code ~/.cache/flux2-java} (on
     *     Windows {@code %LOCALAPPDATA%\flux2-java} when set)
     */
    public static Path defaultHome() {
        String home = System.getenv("FLUX2_HOME");
        if (home != null && !home.isBlank()) {
            return Path.of(home);
        }
        String xdg = System.getenv("XDG_CACHE_HOME");
        if (xdg != null && !xdg.isBlank()) {
            return Path.of(xdg, "flux2-java");
        }
        String local = System.getenv("LOCALAPPDATA");
        if (local != null
                && !local.isBlank()
                && System.getProperty("os.name", "").startsWith("Windows")) {
            return Path.of(local, "flux2-java");
        }
        return Path.of(System.getProperty("user.home"), ".cache", "flux2-java");
    }

    /**
     * @param home the flux2 home folder
     * @return where this platform's runtime of the binding's version lives: {@code home/runtime/<version>/<os-arch>}
     * @throws RuntimeLibraryException when this platform has no WebGPU build
     */
    public static Path folder(Path home) {
        return folder(home, RuntimePin.forBinding(), platform());
    }

    static Path folder(Path home, RuntimePin pin, OrtPlatform platform) {
        return home.resolve("runtime").resolve(pin.ortVersion()).resolve(platform.key());
    }

    /**
     * Installs the runtime of the binding's version for this platform, unless a verified copy is already there.
     *
     * @param home the flux2 home folder ({@link #defaultHome()})
     * @param from a {@code onnxruntime-node-<version>.tgz} tarball, or a folder holding the package (or the library
     *     files themselves); empty to fetch the package with {@code npm pack}
     * @return the installation
     * @throws RuntimeLibraryException when the platform has no WebGPU build, npm fails, or a file is missing, of
     *     another version or does not match its pinned sha512
     */
    public static RuntimeInstallation install(Path home, Optional<Path> from) {
        return install(home, from, RuntimePin.forBinding(), platform(), NpmPack.SYSTEM);
    }

    /**
     * @param home the flux2 home folder
     * @return the verified library of the binding's version for this platform
     * @throws RuntimeLibraryException when it is not installed (naming any other versions that are), or a file does
     *     not match its pinned sha512
     */
    public static Path locate(Path home) {
        return locate(home, RuntimePin.forBinding(), platform());
    }

    static OrtPlatform platform() {
        return OrtPlatform.current()
                .orElseThrow(() -> new RuntimeLibraryException("no WebGPU build of onnxruntime-node "
                        + RuntimePin.BINDING_VERSION + " for " + OrtPlatform.describeCurrent() + " (builds: "
                        + RuntimePin.forBinding().files().keySet().stream()
                                .map(OrtPlatform::key)
                                .toList()
                        + "); name another ONNX Runtime build with FLUX2_ORT_LIBRARY or --ort-library"));
    }

    static Path locate(Path home, RuntimePin pin, OrtPlatform platform) {
        Path dir = folder(home, pin, platform);
        if (!Files.isDirectory(dir)) {
            throw new RuntimeLibraryException("the WebGPU runtime (" + pin.npmPackage() + " " + pin.ortVersion() + ", "
                    + platform.key() + ") is not installed in " + dir
                    + RuntimeFolders.otherVersions(home, pin.ortVersion())
                    + ": run `flux2 runtime install webgpu` (or name an ONNX Runtime library with FLUX2_ORT_LIBRARY,"
                    + " --ort-library or the backend option ort_library)");
        }
        verify(
                dir,
                pin,
                platform,
                "installed runtime in " + dir,
                "run `flux2 runtime install webgpu` again to repair it");
        return dir.resolve(platform.libraryFile());
    }

    /** Checks every pinned file of a folder; throws naming the first that is missing or differs. */
    private static void verify(Path dir, RuntimePin pin, OrtPlatform platform, String what, String fix) {
        for (Map.Entry<String, String> f : pin.filesFor(platform).entrySet()) {
            Path file = dir.resolve(f.getKey());
            if (!Files.isRegularFile(file)) {
                throw new RuntimeLibraryException(what + " is incomplete: " + file + " is missing; " + fix);
            }
            String found = RuntimeFolders.sha512(file);
            if (!found.equals(f.getValue())) {
                throw new RuntimeLibraryException(what + " is corrupt or of another build: " + file + " has sha512 "
                        + RuntimeFolders.abbreviate(found) + ", expected " + RuntimeFolders.abbreviate(f.getValue())
                        + " (" + pin.npmPackage() + " "
                        + pin.ortVersion() + ", " + platform.key() + "); " + fix);
            }
        }
    }

    private static boolean isValid(Path dir, RuntimePin pin, OrtPlatform platform) {
        try {
            verify(dir, pin, platform, "", "");
            return true;
        } catch (RuntimeLibraryException e) {
            return false;
        }
    }

    static RuntimeInstallation install(
            Path home, Optional<Path> from, RuntimePin pin, OrtPlatform platform, NpmPack npm) {
        Map<String, String> pinned = pin.filesFor(platform);
        Path target = folder(home, pin, platform);
        Path library = target.resolve(platform.libraryFile());
        if (Files.isDirectory(target) && isValid(target, pin, platform)) {
            return new RuntimeInstallation(
                    pin.ortVersion(), platform.key(), target, library, false, "already installed");
        }
        Path staging = RuntimeFolders.staging(target, platform.key());
        try {
            String source = gather(from, pin, platform, npm, staging);
            verify(staging, pin, platform, "the " + source, "use the official " + pin.npmSpec() + " package");
            writeRecord(staging, pin, platform, pinned, source);
            RuntimeFolders.deleteTree(staging.resolve(".download"));
            RuntimeFolders.moveIntoPlace(staging, target, platform.key(), () -> isValid(target, pin, platform));
            return new RuntimeInstallation(pin.ortVersion(), platform.key(), target, library, true, source);
        } finally {
            RuntimeFolders.deleteTree(staging);
        }
    }

    /** Puts every pinned file of the platform into {@code staging}; returns a description of the source. */
    private static String gather(Optional<Path> from, RuntimePin pin, OrtPlatform platform, NpmPack npm, Path staging) {
        try {
            if (from.isEmpty()) {
                Path tarball = npm.pack(pin.npmSpec(), Files.createDirectory(staging.resolve(".download")));
                String integrity = Digests.integrity(tarball);
                if (!integrity.equals(pin.tarballIntegrity())) {
                    throw new RuntimeLibraryException("npm pack " + pin.npmSpec() + " gave " + tarball.getFileName()
                            + " with integrity " + RuntimeFolders.abbreviate(integrity) + ", expected "
                            + RuntimeFolders.abbreviate(pin.tarballIntegrity())
                            + " (is the npm registry a mirror that altered it?)");
                }
                extractTarball(tarball, pin, platform, staging);
                return "npm package " + pin.npmSpec();
            }
            Path src = from.get();
            if (Files.isRegularFile(src)) {
                extractTarball(src, pin, platform, staging);
                return "tarball " + src;
            }
            if (Files.isDirectory(src)) {
                copyFromFolder(src, pin, platform, staging);
                return "folder " + src;
            }
            throw new RuntimeLibraryException("--from " + src + ": " + RuntimeFolders.whyNoSource(src) + " (expected "
                    + pin.npmPackage()
                    + "-" + pin.ortVersion() + ".tgz or a folder holding the package)");
        } catch (IOException e) {
            throw new RuntimeLibraryException("installing the WebGPU runtime failed: " + e, e);
        }
    }

    private static void extractTarball(Path tarball, RuntimePin pin, OrtPlatform platform, Path staging)
            throws IOException {
        Path packageJson = staging.resolve(".package.json");
        Map<String, Path> wanted = new LinkedHashMap<>();
        wanted.put("package/package.json", packageJson);
        for (String f : platform.files()) {
            wanted.put("package/bin/napi-v6/" + platform.npmFolder() + "/" + f, staging.resolve(f));
        }
        try {
            TarGz.extract(
                    tarball,
                    wanted,
                    entry -> entry.equals("package/package.json") ? MAX_PACKAGE_JSON_BYTES : MAX_LIBRARY_BYTES);
        } catch (IOException e) {
            throw new RuntimeLibraryException(
                    "cannot read " + tarball + " as an npm package tarball (.tgz): " + e.getMessage(), e);
        }
        checkPackageJson(packageJson, tarball.toString(), pin);
        for (String f : platform.files()) {
            if (!Files.isRegularFile(staging.resolve(f))) {
                throw new RuntimeLibraryException(tarball + " has no package/bin/napi-v6/" + platform.npmFolder() + "/"
                        + f + " (is it the " + pin.npmPackage() + " package?)");
            }
        }
    }

    private static void copyFromFolder(Path src, RuntimePin pin, OrtPlatform platform, Path staging)
            throws IOException {
        List<Path> roots = new ArrayList<>();
        for (Path base :
                List.of(src, src.resolve("package"), src.resolve("node_modules").resolve(pin.npmPackage()))) {
            Path pj = base.resolve("package.json");
            if (Files.isRegularFile(pj)) {
                checkPackageJson(pj, pj.toString(), pin);
            }
            roots.add(base.resolve("bin").resolve("napi-v6").resolve(platform.npmFolder()));
        }
        roots.add(src);
        for (String f : platform.files()) {
            Optional<Path> found = roots.stream()
                    .map(r -> r.resolve(f))
                    .filter(Files::isRegularFile)
                    .findFirst();
            if (found.isEmpty()) {
                throw new RuntimeLibraryException("--from " + src + " holds no " + f + " (looked in " + roots + ")");
            }
            Files.copy(found.get(), staging.resolve(f), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private static void checkPackageJson(Path packageJson, String where, RuntimePin pin) throws IOException {
        if (!Files.isRegularFile(packageJson)) {
            return;
        }
        long size = Files.size(packageJson);
        if (size > MAX_PACKAGE_JSON_BYTES) {
            // Read whole, it could exhaust the heap (an inflating package.json was an OutOfMemoryError, exit 1).
            throw new RuntimeLibraryException(where + ": its package.json is " + size + " bytes, more than the "
                    + MAX_PACKAGE_JSON_BYTES + " bytes a package's manifest may have; is it the " + pin.npmPackage()
                    + " package?");
        }
        JsonNode json;
        try {
            json = new ObjectMapper().readTree(Files.readString(packageJson, StandardCharsets.UTF_8));
        } catch (JsonProcessingException e) {
            throw new RuntimeLibraryException(
                    where + ": its package.json is not valid JSON ("
                            + e.getOriginalMessage().replaceAll("\\s*\\R\\s*", " ")
                            + (e.getLocation() == null
                                    ? ""
                                    : " at line " + e.getLocation().getLineNr() + ", column "
                                            + e.getLocation().getColumnNr())
                            + "); is it the " + pin.npmPackage() + " package?",
                    e);
        } catch (java.nio.charset.MalformedInputException e) {
            throw new RuntimeLibraryException(
                    where + ": its package.json is not UTF-8 text; is it the " + pin.npmPackage() + " package?", e);
        }
        if (json == null || !json.isObject()) {
            throw new RuntimeLibraryException(where + ": its package.json is not a JSON object (found "
                    + (json == null ? "nothing" : json.getNodeType().name().toLowerCase(java.util.Locale.ROOT))
                    + "); is it the " + pin.npmPackage() + " package?");
        }
        String name = json.path("name").asText("");
        String version = json.path("version").asText("");
        if (!name.equals(pin.npmPackage()) || !version.equals(pin.ortVersion())) {
            throw new RuntimeLibraryException(where + " is " + (name.isEmpty() ? "a package without a name" : name)
                    + " " + (version.isEmpty() ? "without a version" : version) + ", expected " + pin.npmPackage()
                    + " " + pin.ortVersion() + ": the native library must be of the ONNX Runtime Java binding's"
                    + " version (" + pin.ortVersion() + ")");
        }
    }

    private static void writeRecord(
            Path staging, RuntimePin pin, OrtPlatform platform, Map<String, String> pinned, String source) {
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode record = mapper.createObjectNode();
        record.put("ort_version", pin.ortVersion());
        record.put("platform", platform.key());
        record.put("package", pin.npmSpec());
        record.put("source", source);
        ObjectNode files = record.putObject("sha512");
        pinned.forEach(files::put);
        try {
            Files.deleteIfExists(staging.resolve(".package.json"));
            Files.writeString(
                    staging.resolve(RECORD_FILE),
                    mapper.writerWithDefaultPrettyPrinter().writeValueAsString(record) + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Fetches an npm package tarball into a folder. */
    @FunctionalInterface
    interface NpmPack {
        /** {@code npm pack <spec> --pack-destination <folder>} with the system's npm. */
        NpmPack SYSTEM = WebGpuRuntime::npmPack;

        /**
         * @param spec {@code name@version}
         * @param folder an empty folder
         * @return the tarball
         * @throws IOException when it cannot be written
         */
        Path pack(String spec, Path folder) throws IOException;
    }

    private static Path npmPack(String spec, Path folder) throws IOException {
        String npm = System.getProperty("os.name", "").startsWith("Windows") ? "npm.cmd" : "npm";
        ProcessBuilder pb = new ProcessBuilder(npm, "pack", spec, "--pack-destination", folder.toString())
                .redirectErrorStream(true)
                .redirectOutput(folder.resolve(".npm.log").toFile());
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            throw new RuntimeLibraryException("cannot run npm (" + e.getMessage() + "): install Node.js's npm, or"
                    + " download " + spec + " elsewhere and pass it with --from");
        }
        try {
            if (!p.waitFor(NPM_TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new RuntimeLibraryException(
                        "npm pack " + spec + " did not finish in " + NPM_TIMEOUT_MINUTES + " minutes");
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new RuntimeLibraryException("npm pack " + spec + " was interrupted");
        }
        String log = Files.readString(folder.resolve(".npm.log"), StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            String tail = log.length() > 600 ? log.substring(log.length() - 600) : log;
            throw new RuntimeLibraryException("npm pack " + spec + " failed with exit code " + p.exitValue() + ": "
                    + tail.strip() + " (or pass a downloaded tarball with --from)");
        }
        try (Stream<Path> s = Files.list(folder)) {
            return s.filter(f -> f.getFileName().toString().endsWith(".tgz"))
                    .findFirst()
                    .orElseThrow(() -> new RuntimeLibraryException(
                            "npm pack " + spec + " wrote no .tgz into " + folder + ": " + log.strip()));
        }
    }
}
