package dev.flux2.onnx.options;

/**
 * How the CUDA provider picks cuDNN's convolution algorithms (ONNX Runtime's {@code cudnn_conv_algo_search}), for the
 * VAE's convolutions: the backend option {@value OnnxOptions#CUDNN_CONV_ALGO_SEARCH}.
 */
public enum CudnnConvAlgoSearch {
    /** Times every algorithm on the first run of each shape (ONNX Runtime's default): slower first run, fastest after. */
    EXHAUSTIVE,
    /** cuDNN's heuristic choice, without timing: a fast first run, maybe slower steady runs (flux2's default). */
    HEURISTIC,
    /** cuDNN's default algorithm, neither timed nor chosen. */
    DEFAULT
}
