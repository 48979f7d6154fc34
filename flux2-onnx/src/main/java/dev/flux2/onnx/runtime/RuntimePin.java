package dev.flux2.onnx.runtime;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What a WebGPU runtime of one ONNX Runtime version must be: the npm package and version it comes from, the package
 * tarball's integrity (npm's {@code sha512-<base64>}) and the sha512 of every file installed per platform. Values
 * measured on the official {@code onnxruntime-node} package (docs/gpu.md, "Pinned runtimes"). Immutable.
 *
 * @param ortVersion the ONNX Runtime version, which is the npm package's version
 * @param npmPackage the npm package name
 * @param tarballIntegrity the tarball's integrity string as npm reports it
 * @param files per platform, each installed file's name and lower-case hex sha512
 */
record RuntimePin(
        String ortVersion, String npmPackage, String tarballIntegrity, Map<OrtPlatform, Map<String, String>> files) {

    /** The version of the ONNX Runtime Java binding this build of flux2-java uses. */
    static final String BINDING_VERSION = "1.26.0";

    /** onnxruntime-node 1.26.0, measured 2026-12-01. */
    static final RuntimePin ORT_1_26_0 = new RuntimePin(
            "1.26.0",
            "onnxruntime-node",
            "sha512-OHl6PiOEOqxaLHL0N9eFrbzS7IGmu3BtJNH3RTEnRAheCIkfc3gjcjl4sGcjp9C22ZC9YTquDOxSdT/stBQ6BQ==",
            Map.of(
                    OrtPlatform.LINUX_X64,
                    Map.of(
                            "libonnxruntime.so.1",
                            "8a69c826e6e6b9e36126544436240963aba31983ddc2f7ae5d880f5d27277bc2"
                                    + "750fb63bcb4c5cab9ac5985db3314764e7cb39c682a473463f7cefbc287277f2"),
                    OrtPlatform.MACOS_ARM64,
                    Map.of(
                            "libonnxruntime.1.dylib",
                            "07ebd53a7fff2f6e9cf1dd71e0fe68d2d82f3e583558f0c7c3a15eec1c49d901"
                                    + "6d18874dacc16e4ac1126361da6a2ad38d85a4fad41e49e55ff58f0ea5cf9af7"),
                    OrtPlatform.WINDOWS_X64,
                    Map.of(
                            "onnxruntime.dll",
                            "2fe2e0c6eb39357c539521f0a6522e472f2838cb2409761d0e0aabffdde4a0cc"
                                    + "bae6577c0bbbe2d9ce0a1e820d16ae0f52d7c59488f819435db07569bc89c022",
                            "dxcompiler.dll",
                            "4a2948913f4c98abdbabac74708406b4d8d682d50608c7c86f2a74e8d4afd57d"
                                    + "f08b3ed5b3af311650005684146d289594d16267d51013b7d59c5b4451523591",
                            "dxil.dll",
                            "86f0ee27198be1fd6b19b36063bd7473e2a0b866d9cc65f9e7c3d3a8e2a62a23"
                                    + "84e62947d2448087be5b5a39a7f983fd5a5c0de3104ce4c6259d0abd8b094f62",
                            "DirectML.dll",
                            "988f7546243a8c7358f35ed2c1b0a438edf10f3af61f948c579bc63c6118475b"
                                    + "6b4dacfebe5d31a5c40640bb6e18057a409438cc3992401bcb57c27df3de8b0a"),
                    OrtPlatform.WINDOWS_ARM64,
                    Map.of(
                            "onnxruntime.dll",
                            "aff979a01c0f31430540f0559f7ce20c0981e24b496945d100882e99ce8006c9"
                                    + "230ce3ac135e2eb9c78f30d8e8cb96c355a643fd8ee1cddca03110e8d0416e4e",
                            "dxcompiler.dll",
                            "e06231427ff6861ab977386c285c1ecb8e4ebdc3cafc220b3f260e2d081c0c27"
                                    + "da9dd93325d6c6c935445d6d07b8731e2c9cfd0654f9fe8c90a2ec752f379037",
                            "dxil.dll",
                            "e1901408cd7f525647fc2d356e123282b9dc40d9226b9c9397987ea6276049f7"
                                    + "439033b2602c94bdcfaf436035240b08b0709917a8e674984627e78bfc8e6d39",
                            "DirectML.dll",
                            "9f975d1882afbb9f05968f3b36c953f9ab45da97ca409ba483b920c08c69c7c3"
                                    + "24950dc15e66f59da8dc61699026569d6ff9073142fcadc59092bc1d9787d6e8")));

    /** Copies and checks that every platform pins each of its files. */
    RuntimePin {
        Objects.requireNonNull(ortVersion, "ortVersion");
        Objects.requireNonNull(npmPackage, "npmPackage");
        Objects.requireNonNull(tarballIntegrity, "tarballIntegrity");
        Map<OrtPlatform, Map<String, String>> copy = new EnumMap<>(OrtPlatform.class);
        for (Map.Entry<OrtPlatform, Map<String, String>> e : files.entrySet()) {
            for (String f : e.getKey().files()) {
                if (!e.getValue().containsKey(f)) {
                    throw new IllegalArgumentException(e.getKey().key() + " pins no sha512 for " + f);
                }
            }
            copy.put(e.getKey(), Map.copyOf(e.getValue()));
        }
        files = java.util.Collections.unmodifiableMap(copy);
    }

    /**
     * @param version an ONNX Runtime version
     * @return the pin of that version, if this build of flux2-java knows it
     */
    static Optional<RuntimePin> of(String version) {
        return List.of(ORT_1_26_0).stream()
                .filter(p -> p.ortVersion.equals(version))
                .findFirst();
    }

    /** @return the pin of the Java binding's version */
    static RuntimePin forBinding() {
        return of(BINDING_VERSION).orElseThrow();
    }

    /**
     * @param platform a platform
     * @return the pinned files of the platform
     * @throws RuntimeLibraryException when this version has no WebGPU build for it
     */
    Map<String, String> filesFor(OrtPlatform platform) {
        Map<String, String> f = files.get(platform);
        if (f == null) {
            throw new RuntimeLibraryException(npmPackage + " " + ortVersion + " has no WebGPU build for "
                    + platform.key() + " (builds: " + files.keySet() + ")");
        }
        return f;
    }

    /** @return {@code onnxruntime-node@1.26.0} */
    String npmSpec() {
        return npmPackage + "@" + ortVersion;
    }
}
