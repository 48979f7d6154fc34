package dev.flux2.onnx.runtime;

/**
 * The CUDA provider cannot run here: a CUDA library it links is missing or of another CUDA version (each one named,
 * with where it was looked for and how to get it), the NVIDIA driver is missing, or the driver sees no GPU. Checked
 * before ONNX Runtime loads its CUDA provider, so that ONNX Runtime's bare "Failed to load shared library" is never
 * what a user reads. The {@code flux2} CLI exits with code 5 for it, as for every unusable native library.
 */
public class CudaUnavailableException extends RuntimeLibraryException {
    private static final long serialVersionUID = 1L;

    /** @param message names each missing library or the missing device, where it was looked for and what to do */
    public CudaUnavailableException(String message) {
        super(message);
    }
}
