package dev.flux2.onnx.runtime;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What a CUDA runtime of one ONNX Runtime version must be: the Maven artifact it comes from
 * ({@code com.microsoft.onnxruntime:onnxruntime_gpu}), the jar's sha512, and per platform the jar's native folder and
 * every installed file's size and sha512. Measured on the jar of Maven Central (docs/gpu.md, "Pinned runtimes").
 * Immutable.
 *
 * <p>The TensorRT provider library of the same folder is not installed: it needs TensorRT 10 besides CUDA, flux2-java
 * has no TensorRT options, and the graphs' 4-bit {@code MatMulNBits} is not a TensorRT operator (the CUDA provider
 * would run it anyway); {@code --provider tensorrt} on this runtime then fails with ONNX Runtime's "Failed to find
 * TensorRT shared provider".
 *
 * @param ortVersion the ONNX Runtime version, which is the artifact's version
 * @param groupId the Maven group
 * @param artifactId the Maven artifact
 * @param jarSha512 the jar's sha512, lower-case hex
 * @param natives per platform, the jar's native folder and the pinned files
 */
record CudaRuntimePin(
        String ortVersion, String groupId, String artifactId, String jarSha512, Map<OrtPlatform, Natives> natives) {

    /** onnxruntime_gpu 1.26.0, measured 2026-12-04 on the jar as Maven Central serves it. */
    static final CudaRuntimePin ORT_1_26_0 = new CudaRuntimePin(
            "1.26.0",
            "com.microsoft.onnxruntime",
            "onnxruntime_gpu",
            "0e74e7e37e85300680bd5b36f2c640134c581be144a34a698dbecfe9cd12f7a8"
                    + "27910661a1cde7cf806085313bc52fcd617646b9ae28e2f21f61a9cecfb2274d",
            Map.of(
                    OrtPlatform.LINUX_X64,
                    new Natives(
                            "linux-x64",
                            List.of(
                                    new PinnedFile(
                                            "libonnxruntime.so",
                                            26_370_104L,
                                            "4dce3a166ff5469f4bc7ed3701aed894468461efedcf565d557ec99bf178e372"
                                                    + "d35451ec068110f4657cc8f7cbad85199f86b56d249a4e60becae6efe3db3587"),
                                    new PinnedFile(
                                            "libonnxruntime4j_jni.so",
                                            88_352L,
                                            "f81b016753f9963147ff359a0459cd717ef1affa802ba8d91230a7fb533d2a5b"
                                                    + "33e492b7ea296adc0b145c9c2cd4cc4901e6b4f41fa822814f3ddf048f7e7c0f"),
                                    new PinnedFile(
                                            "libonnxruntime_providers_shared.so",
                                            14_632L,
                                            "716421b811e99769e66441de72bc0dab5da9df8a669f75385c26b046879c07ca"
                                                    + "aee49ec29da27cfb54558e103fc4d3ae9ab1e26161e6d17f93332a6665971f70"),
                                    new PinnedFile(
                                            "libonnxruntime_providers_cuda.so",
                                            344_356_536L,
                                            "98d056df87cdd1547655c5e59c867013ab3b4d27a3426aced06f6020c100430a"
                                                    + "4e8011ae44964a6c6cede2e928917fa1291a32ee6ad04d7f8c871e7d40a36dd6"))),
                    OrtPlatform.WINDOWS_X64,
                    new Natives(
                            "win-x64",
                            List.of(
                                    new PinnedFile(
                                            "onnxruntime.dll",
                                            15_336_248L,
                                            "d05a00cf066274c78a117c7c77c8ae413424edef8c714ee1b2f88f283b51601f"
                                                    + "8cc2b05c098902b9084677720f59cdc4c2b2e6f7ad10c335cdb4a00bfdf94968"),
                                    new PinnedFile(
                                            "onnxruntime4j_jni.dll",
                                            92_512L,
                                            "ce371076f9618d522945d56c03e947a9f90ff7dc135d3c828bbd017db2ea9e9b"
                                                    + "828446aafea0bbded39c32e87a987f936d7fc5d33780989856482392d9c8e913"),
                                    new PinnedFile(
                                            "onnxruntime_providers_shared.dll",
                                            21_816L,
                                            "33ebbd74d23116ca15c9c49cc40cc0a18ca7427c403f2f5bf82edb3a8ea10e9e"
                                                    + "171c7ddb5e53e45912ec0594be47b4dd1921e2aeb301d3f9fda417c5eb52d1c3"),
                                    new PinnedFile(
                                            "onnxruntime_providers_cuda.dll",
                                            299_003_704L,
                                            "cce75a5bbc8ec7eb70dd5eee8c6ca8e037ca2b1cc4f3f3ef347ec5ab70a26658"
                                                    + "96554e863ef5027862aecc5a5502deacdff0ca9e5d1da725087f3d7c0fd9c8d1")))));

    /** Copies and checks for nulls. */
    CudaRuntimePin {
        Objects.requireNonNull(ortVersion, "ortVersion");
        Objects.requireNonNull(groupId, "groupId");
        Objects.requireNonNull(artifactId, "artifactId");
        Objects.requireNonNull(jarSha512, "jarSha512");
        natives = Map.copyOf(natives);
    }

    /**
     * One platform's files.
     *
     * @param jarFolder the folder under {@code ai/onnxruntime/native/} in the jar, for example {@code linux-x64}
     * @param files the installed files, the ONNX Runtime core library first
     */
    record Natives(String jarFolder, List<PinnedFile> files) {
        /** Copies; the core library comes first. */
        Natives {
            Objects.requireNonNull(jarFolder, "jarFolder");
            files = List.copyOf(files);
            if (files.isEmpty()) {
                throw new IllegalArgumentException("no files pinned for " + jarFolder);
            }
        }

        /** @return the ONNX Runtime core library's file name */
        String coreLibrary() {
            return files.get(0).name();
        }

        /** @return the CUDA provider library's file name */
        String cudaProvider() {
            return files.stream()
                    .map(PinnedFile::name)
                    .filter(n -> n.contains("providers_cuda"))
                    .findFirst()
                    .orElseThrow();
        }

        /** @return the sum of the pinned sizes: the bound on what an install writes */
        long totalBytes() {
            return files.stream().mapToLong(PinnedFile::size).sum();
        }

        /** @return the entry name of a file in the jar */
        String entry(String file) {
            return "ai/onnxruntime/native/" + jarFolder + "/" + file;
        }
    }

    /**
     * An installed file.
     *
     * @param name the file name, as in the jar
     * @param size its size in bytes
     * @param sha512 its sha512, lower-case hex
     */
    record PinnedFile(String name, long size, String sha512) {
        /** Checks for nulls and a negative size. */
        PinnedFile {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(sha512, "sha512");
            if (size < 0) {
                throw new IllegalArgumentException("negative size for " + name);
            }
        }
    }

    /**
     * @param version an ONNX Runtime version
     * @return the pin of that version, if this build of flux2-java knows it
     */
    static Optional<CudaRuntimePin> of(String version) {
        return ORT_1_26_0.ortVersion.equals(version) ? Optional.of(ORT_1_26_0) : Optional.empty();
    }

    /** @return the pin of the Java binding's version */
    static CudaRuntimePin forBinding() {
        return of(RuntimePin.BINDING_VERSION).orElseThrow();
    }

    /**
     * @param platform a platform
     * @return its natives
     * @throws RuntimeLibraryException when the artifact has no CUDA build for it
     */
    Natives nativesFor(OrtPlatform platform) {
        Natives n = natives.get(platform);
        if (n == null) {
            throw new RuntimeLibraryException(artifactId + " " + ortVersion + " has no CUDA build for "
                    + platform.key() + " (builds: "
                    + natives.keySet().stream().map(OrtPlatform::key).sorted().toList() + ")");
        }
        return n;
    }

    /** @return {@code com.microsoft.onnxruntime:onnxruntime_gpu:1.26.0} */
    String coordinates() {
        return groupId + ":" + artifactId + ":" + ortVersion;
    }

    /** @return the folder name of a platform's CUDA runtime: {@code <os-arch>-cuda} */
    static String folderName(OrtPlatform platform) {
        return platform.key() + "-cuda";
    }
}
