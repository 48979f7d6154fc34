package dev.flux2.onnx.runtime;

import java.util.List;

/**
 * A library ONNX Runtime's CUDA provider of {@code onnxruntime_gpu} 1.26 needs at load time (the provider links the
 * CUDA 12 libraries by their sonames, with versioned symbols: CUDA 13's libraries do not serve; the CUDA runtime
 * opens the driver's {@code libcuda}). Per library: its file names on Linux and Windows, the pip wheel whose
 * {@code nvidia/<folder>/lib} holds it, and the ways to get it, for messages.
 */
enum CudaLibrary {
    /** The CUDA 12 runtime. */
    CUDART(
            "libcudart.so.12",
            "cudart64_12.dll",
            "cuda_runtime",
            "the CUDA 12 runtime",
            "the CUDA 12 toolkit (or just its runtime: the cuda-cudart-12-x package)",
            "pip install nvidia-cuda-runtime-cu12"),
    /** cuBLAS of CUDA 12. */
    CUBLAS(
            "libcublas.so.12",
            "cublas64_12.dll",
            "cublas",
            "cuBLAS of CUDA 12",
            "the CUDA 12 toolkit (or the libcublas-12-x package)",
            "pip install nvidia-cublas-cu12"),
    /** cuBLASLt of CUDA 12. */
    CUBLAS_LT(
            "libcublasLt.so.12",
            "cublasLt64_12.dll",
            "cublas",
            "cuBLASLt of CUDA 12",
            "the CUDA 12 toolkit (or the libcublas-12-x package)",
            "pip install nvidia-cublas-cu12"),
    /** cuFFT of CUDA 12 (soname 11). */
    CUFFT(
            "libcufft.so.11",
            "cufft64_11.dll",
            "cufft",
            "cuFFT of CUDA 12",
            "the CUDA 12 toolkit (or the libcufft-12-x package)",
            "pip install nvidia-cufft-cu12"),
    /** cuRAND (soname 10, CUDA 12's). */
    CURAND(
            "libcurand.so.10",
            "curand64_10.dll",
            "curand",
            "cuRAND of CUDA 12",
            "the CUDA 12 toolkit (or the libcurand-12-x package)",
            "pip install nvidia-curand-cu12"),
    /** cuDNN 9 built for CUDA 12. */
    CUDNN(
            "libcudnn.so.9",
            "cudnn64_9.dll",
            "cudnn",
            "cuDNN 9 for CUDA 12",
            "NVIDIA's cuDNN 9 for CUDA 12 (the cudnn9-cuda-12 package)",
            "pip install nvidia-cudnn-cu12"),
    /** The NVIDIA driver's CUDA library. */
    DRIVER(
            "libcuda.so.1",
            "nvcuda.dll",
            "",
            "the NVIDIA driver's CUDA library",
            "the NVIDIA driver (release 525 or newer for CUDA 12); in a container, start it with the GPU passed"
                    + " through (the NVIDIA container toolkit's --gpus)",
            "");

    private final String linuxName;
    private final String windowsName;
    private final String wheelFolder;
    private final String what;
    private final String system;
    private final String pip;

    CudaLibrary(String linuxName, String windowsName, String wheelFolder, String what, String system, String pip) {
        this.linuxName = linuxName;
        this.windowsName = windowsName;
        this.wheelFolder = wheelFolder;
        this.what = what;
        this.system = system;
        this.pip = pip;
    }

    /**
     * @param windows whether the names are Windows'
     * @return the file the loader looks for, for example {@code libcublas.so.12}
     */
    String fileName(boolean windows) {
        return windows ? windowsName : linuxName;
    }

    /**
     * @param windows whether the names are Windows'
     * @return the file name's stem before the major version ({@code libcublas.so.}, {@code cublas64_}), to recognise
     *     the same library of another CUDA version
     */
    String stem(boolean windows) {
        String name = fileName(windows);
        return windows ? name.substring(0, name.lastIndexOf('_') + 1) : name.substring(0, name.lastIndexOf('.') + 1);
    }

    /**
     * @return whether the CUDA provider links it by versioned symbols of its CUDA major version (the toolkit's
     *     libraries: another major's file does not serve); the driver's {@code libcuda.so.1} carries only GLIBC's
     *     symbol versions and its file is named by the driver's release ({@code libcuda.so.580.159.04}), and any
     *     driver of release 525 or newer serves CUDA 12
     */
    boolean versionedSymbols() {
        return this != DRIVER;
    }

    /** @return the folder under a pip wheel's {@code site-packages/nvidia/} holding it, empty for the driver */
    String wheelFolder() {
        return wheelFolder;
    }

    /** @return what the library is, for messages */
    String what() {
        return what;
    }

    /** @return the ways to get it, for messages */
    List<String> ways() {
        return pip.isEmpty()
                ? List.of(system)
                : List.of(system, "or `" + pip + "` and add its folder to the loader's path");
    }
}
