package dev.flux2.onnx.runtime;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A platform whose onnxruntime-node build includes the WebGPU execution provider (checked in the 1.26.0 package:
 * its library contains Dawn and the WebGPU provider's error strings). onnxruntime-node's linux-arm64 library has no
 * WebGPU provider (only the provider's name in the list of known ones), so linux-arm64 is not a platform here.
 */
public enum OrtPlatform {
    /** Linux on x86-64 (Vulkan). */
    LINUX_X64("linux-x64", "linux/x64", "libonnxruntime.so.1", List.of()),
    /** macOS on Apple silicon (Metal). */
    MACOS_ARM64("macos-arm64", "darwin/arm64", "libonnxruntime.1.dylib", List.of()),
    /** Windows on x86-64 (D3D12; the DirectX shader compiler and DirectML libraries beside it). */
    WINDOWS_X64("windows-x64", "win32/x64", "onnxruntime.dll", List.of("dxcompiler.dll", "dxil.dll", "DirectML.dll")),
    /** Windows on ARM64 (D3D12). */
    WINDOWS_ARM64(
            "windows-arm64", "win32/arm64", "onnxruntime.dll", List.of("dxcompiler.dll", "dxil.dll", "DirectML.dll"));

    private final String key;
    private final String npmFolder;
    private final String libraryFile;
    private final List<String> companionFiles;

    OrtPlatform(String key, String npmFolder, String libraryFile, List<String> companionFiles) {
        this.key = key;
        this.npmFolder = npmFolder;
        this.libraryFile = libraryFile;
        this.companionFiles = companionFiles;
    }

    /** @return the folder name under {@code runtime/<version>/}, for example {@code linux-x64} */
    public String key() {
        return key;
    }

    /** @return the folder of this platform's files inside the npm package's {@code bin/napi-v6/} */
    String npmFolder() {
        return npmFolder;
    }

    /** @return the ONNX Runtime library's file name */
    public String libraryFile() {
        return libraryFile;
    }

    /** @return the libraries the ONNX Runtime library loads from its own folder */
    List<String> companionFiles() {
        return companionFiles;
    }

    /** @return the library first, then its companions */
    List<String> files() {
        return java.util.stream.Stream.concat(java.util.stream.Stream.of(libraryFile), companionFiles.stream())
                .toList();
    }

    /** @return this JVM's platform, if it is one with a WebGPU build */
    public static Optional<OrtPlatform> current() {
        return of(System.getProperty("os.name", ""), System.getProperty("os.arch", ""));
    }

    /**
     * @param osName the {@code os.name} property
     * @param osArch the {@code os.arch} property
     * @return the platform, if it is one with a WebGPU build
     */
    static Optional<OrtPlatform> of(String osName, String osArch) {
        String os = osName.toLowerCase(Locale.ROOT);
        String arch = osArch.toLowerCase(Locale.ROOT);
        boolean x64 = arch.equals("amd64") || arch.equals("x86_64");
        boolean arm64 = arch.equals("aarch64") || arch.equals("arm64");
        if (os.contains("linux") && x64) {
            return Optional.of(LINUX_X64);
        }
        if ((os.contains("mac") || os.contains("darwin")) && arm64) {
            return Optional.of(MACOS_ARM64);
        }
        if (os.contains("windows") && x64) {
            return Optional.of(WINDOWS_X64);
        }
        if (os.contains("windows") && arm64) {
            return Optional.of(WINDOWS_ARM64);
        }
        return Optional.empty();
    }

    /** @return a description of this JVM's platform for messages, for example {@code linux aarch64} */
    static String describeCurrent() {
        return System.getProperty("os.name", "?") + " " + System.getProperty("os.arch", "?");
    }
}
