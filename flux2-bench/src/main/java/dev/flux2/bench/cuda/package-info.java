/**
 * ONNX Runtime's CUDA provider measured: the denoiser step per graph form and CUDA setting
 * ({@link dev.flux2.bench.cuda.CudaStepComparison}), a whole image from a warm pipeline, session creation, warm-up
 * and peak device memory. Run on the H200 GPU machine by {@code flux2-bench/gpu/cuda-h200.sh}; results:
 * docs/performance.md and docs/gpu.md.
 */
package dev.flux2.bench.cuda;
