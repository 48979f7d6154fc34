package dev.flux2.cli;

import dev.flux2.Flux2Pipeline;
import dev.flux2.ImageFiles;
import dev.flux2.api.CancellationToken;
import dev.flux2.api.GeneratedImage;
import dev.flux2.api.GenerationCancelledException;
import dev.flux2.api.GenerationControls;
import dev.flux2.api.GenerationLimits;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.api.MemoryPolicy;
import dev.flux2.api.ModelInfo;
import dev.flux2.api.ModelLoadException;
import dev.flux2.api.ModelRole;
import dev.flux2.api.ProgressListener;
import dev.flux2.onnx.options.OnnxOptions;
import dev.flux2.onnx.options.ProviderFallback;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code flux2 generate}: one or more images from a prompt (text-to-image, img2img, reference editing). */
@Command(
        name = "generate",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Generate images from a prompt.",
            "Unset values come from the bundle config (steps, guidance, default size). Without --seed a random"
                    + " seed is drawn and printed. The output path, seed and timings go to stdout, progress to stderr."
        })
final class GenerateCommand extends BaseCommand {
    private static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(15);
    /** The most threads per inference call accepted (far above any useful value). */
    static final int MAX_THREADS = 1024;

    @Mixin
    ModelOption modelOption;

    @Mixin
    ComponentOption componentOption;

    @Option(
            names = {"-p", "--prompt"},
            required = true,
            paramLabel = "TEXT",
            description = "The prompt, used verbatim.")
    String prompt;

    @Option(
            names = {"-W", "--width"},
            paramLabel = "W",
            description = "Width in pixels, a multiple of 16 (default: bundle default_width, or the init image's).")
    Integer width;

    @Option(
            names = {"-H", "--height"},
            paramLabel = "H",
            description = "Height in pixels, a multiple of 16 (default: bundle default_height, or the init image's).")
    Integer height;

    @Option(
            names = {"-n", "--steps"},
            paramLabel = "N",
            description = "Denoising steps (default: bundle num_steps, 4 for klein distilled).")
    Integer steps;

    @Option(
            names = {"-s", "--seed"},
            paramLabel = "S",
            description = "Noise seed (default: random, printed). Image k of --num-images uses S+k.")
    Long seed;

    @Option(
            names = {"-g", "--guidance"},
            paramLabel = "G",
            description = "Guidance scale (default: bundle guidance; ignored by distilled models).")
    Double guidance;

    @Option(
            names = {"-o", "--output"},
            paramLabel = "FILE.png|FILE.jpg",
            description =
                    "Output file; the extension selects the format: .png (parameters in text chunks) or .jpg/.jpeg"
                            + " (default: flux2-<seed>.png). With --num-images K > 1: FILE-<k>.EXT. Checked before the model"
                            + " loads.")
    Path output;

    @Option(
            names = "--jpeg-quality",
            paramLabel = "Q",
            defaultValue = "95",
            description = "JPEG quality 1-100 (default ${DEFAULT-VALUE}).")
    int jpegQuality;

    @Mixin
    LimitOptions limitOptions;

    @Option(names = "--init-image", paramLabel = "IMG", description = "Init image for img2img.")
    Path initImage;

    @Option(
            names = "--strength",
            paramLabel = "S",
            description = "img2img strength in [1e-6, 1] (default 0.8, or (n-1)/n when 0.8 would start from pure"
                    + " noise: 0.75 for 4 steps); needs --init-image.")
    Double strength;

    @Option(
            names = "--mask",
            paramLabel = "MASK",
            description = "Inpainting mask for --init-image: white repaints, black keeps (binarized at grey 128,"
                    + " stretched to the working size), as diffusers' Flux2KleinInpaintPipeline; --reference"
                    + " images are its image_reference.")
    Path mask;

    @Option(
            names = "--mask-crop-padding",
            paramLabel = "N",
            description = "Inpaint only the --mask's region grown by N >= 0 pixels (diffusers' padding_mask_crop):"
                    + " the output keeps the init image's size and pixels outside the mask; the mask must have the"
                    + " init image's size.")
    Integer maskCropPadding;

    @Option(
            names = "--reference",
            paramLabel = "IMG",
            description = "Reference image for multi-reference editing (repeatable).")
    List<Path> references = new ArrayList<>();

    @Option(
            names = {"-k", "--num-images"},
            paramLabel = "K",
            defaultValue = "1",
            description = "Number of images (default ${DEFAULT-VALUE}).")
    int numImages;

    @Option(
            names = {"-t", "--threads"},
            paramLabel = "T",
            defaultValue = "0",
            description = "Threads per inference call, 0 = ONNX Runtime default (at most the processors"
                    + " available; more are capped with a warning).")
    int threads;

    @Option(
            names = "--provider",
            paramLabel = "NAME",
            split = ",",
            description = "Execution provider(s) to use before CPU: cpu, webgpu, cuda, coreml, directml, …"
                    + " (default cpu). webgpu loads the runtime `flux2 runtime install webgpu` installed.")
    List<String> providers = new ArrayList<>();

    @Option(
            names = "--ort-library",
            paramLabel = "PATH",
            description = "The ONNX Runtime native library to load (any build of the Java binding's version; backend"
                    + " option ort_library). Default: $FLUX2_ORT_LIBRARY, else the installed WebGPU runtime for"
                    + " --provider webgpu, else the jar's own.")
    Path ortLibrary;

    @Option(
            names = "--allow-fallback",
            description =
                    "Fall back to the next provider (finally CPU) with a warning instead of failing when a provider is unavailable.")
    boolean allowFallback;

    @Option(
            names = "--memory",
            paramLabel = "POLICY",
            defaultValue = "auto",
            description = "auto (resident when every session fits in the memory available, else sequential), "
                    + "sequential (peak bounded by the largest stage) or resident (default ${DEFAULT-VALUE}; "
                    + "flux2 info shows what auto chooses and why).")
    MemoryPolicy memory;

    @Option(
            names = "--no-fused",
            description = "Never use a fused multi-step denoiser graph, even when the bundle has one.")
    boolean noFused;

    @Option(
            names = "--cpu-tuned",
            arity = "0..1",
            fallbackValue = "true",
            paramLabel = "MODE",
            description = "Run CPU-tuned text encoder and transformer graphs, derived once beside the bundle (or in "
                    + "the cache folder) and reused: true (MatMulNBits accuracy level 0 and fp32 activations, the "
                    + "default MODE), fp32 (fp32 activations only) or acc0 (accuracy level 0 only); backend option "
                    + "cpu_tuned.")
    String cpuTuned;

    @Option(
            names = "--attention",
            paramLabel = "MODE",
            description = "fused: run the transformer's and VAE decoder's attention as ONNX Runtime's fused "
                    + "MultiHeadAttention (fp32), in graphs derived once like --cpu-tuned's; fused_fp16: the same "
                    + "in fp16 (CUDA); graph: as exported. Default auto: fused_fp16 on CUDA, graph elsewhere; "
                    + "backend option attention.")
    String attention;

    @Option(
            names = "--gpu-weights",
            paramLabel = "MODE",
            description = "dequantized: run the transformer's 4-bit block-16 weight products as an in-graph "
                    + "DequantizeLinear of the same packed weights and an fp32 MatMul (2x faster steps on WebGPU); "
                    + "dequantized_fp16: with an fp16 MatMul (faster, less accurate on WebGPU); in graphs derived "
                    + "once like --cpu-tuned's; packed: as exported (MatMulNBits). Default: auto (dequantized on "
                    + "WebGPU, packed elsewhere); backend option weights.")
    String gpuWeights;

    @Option(
            names = "--no-spinning",
            description = "ONNX Runtime's idle threads sleep instead of spinning between operators (less CPU time, "
                    + "about the same wall time for large graphs); backend option allow_spinning=false.")
    boolean noSpinning;

    @Option(names = "--no-progress", description = "Do not draw progress bars on stderr.")
    boolean noProgress;

    @Override
    public Integer call() throws IOException {
        long baseSeed = seed != null ? seed : randomSeed();
        // The request is validated (and images read) before the model loads: bad input fails fast with exit 2.
        CancellationToken token = new CancellationToken();
        if (jpegQuality < 1 || jpegQuality > 100) {
            throw new InvalidRequestException("--jpeg-quality must be in 1..100, got " + jpegQuality);
        }
        if (threads < 0 || threads > MAX_THREADS) {
            // ONNX Runtime would try to start them all: a typo must not spawn a hundred thousand threads.
            throw new InvalidRequestException("--threads must be in 0.." + MAX_THREADS + ", got " + threads);
        }
        int cores = Runtime.getRuntime().availableProcessors();
        if (threads > cores) {
            // More intra-op threads than processors only makes them wait for each other: measured 40x slower with
            // 1024 threads on 2 cores. Capped, and said once.
            err().printf(
                            Locale.ROOT,
                            "flux2: warning: --threads %d is more than the %d processor(s) available; using %d%n",
                            threads,
                            cores,
                            cores);
            err().flush();
            threads = cores;
        }
        GenerationLimits limits = limitOptions.toLimits();
        GenerationRequest.Builder request = requestBuilder(baseSeed, limits).limits(limits);
        GenerationRequest validated = request.build();
        limits.checkRequest(validated);
        Map<ModelRole, Path> components = componentOption.resolve();
        // The outputs too: an unusable path is a usage error now, not a lost image after the generation.
        List<Path> outputs = outputPaths(baseSeed);
        outputs.forEach(OutputCheck::check);
        out().println("seed: " + baseSeed);
        out().flush();
        PrintStream progressStream = System.err;
        CancelOnShutdown guard = CancelOnShutdown.install(token, progressStream, SHUTDOWN_GRACE);
        try {
            return generate(validated, token, components, outputs, progressStream, limits);
        } catch (RuntimeException e) {
            // Reported before the guard closes: once it does, a Ctrl-C shutdown completes and the JVM halts. After
            // a cancel, any failure is the cancellation surfacing (for example a runtime call aborted mid-graph).
            RuntimeException shown = token.isCancelled() && !(e instanceof GenerationCancelledException)
                    ? new GenerationCancelledException("generation cancelled (" + e.getMessage() + ")", e)
                    : cliWording(e);
            ErrorReporter.report(err(), shown, verbose);
            return ExitCodes.of(shown);
        } finally {
            guard.close();
        }
    }

    private int generate(
            GenerationRequest validated,
            CancellationToken token,
            Map<ModelRole, Path> components,
            List<Path> outputs,
            PrintStream progressStream,
            GenerationLimits limits)
            throws IOException {
        Flux2Pipeline.Builder builder = pipelineBuilder(token).limits(limits);
        components.forEach(builder::component);
        try (Flux2Pipeline pipeline = builder.build()) {
            ModelInfo info = pipeline.modelInfo();
            err().printf(
                            Locale.ROOT,
                            "model: %s (defaults: %d steps, %dx%d, guidance %s)%n",
                            info.variant(),
                            info.defaultSteps(),
                            info.defaultWidth(),
                            info.defaultHeight(),
                            info.defaultGuidance());
            err().flush();
            GenerationResult result;
            try (ProgressBars bars = noProgress ? null : new ProgressBars(progressStream, numImages)) {
                ProgressListener listener = bars == null ? ProgressListener.NONE : bars;
                result = pipeline.generate(
                        validated,
                        GenerationControls.none().withProgress(listener).withCancellation(token));
            }
            result.images().stream()
                    .flatMap(i -> i.metadata().warnings().stream())
                    .distinct()
                    .forEach(w -> err().println("flux2: warning: " + w));
            err().flush();
            for (int k = 0; k < result.images().size(); k++) {
                GeneratedImage image = result.images().get(k);
                ImageFileWriter.write(image, outputs.get(k), jpegQuality / 100f);
                out().printf(
                                Locale.ROOT,
                                "output: %s (seed %s, %dx%d, %d steps)%n",
                                outputs.get(k),
                                image.metadata().seed().isPresent()
                                        ? Long.toString(image.metadata().seed().getAsLong())
                                        : "n/a",
                                image.metadata().width(),
                                image.metadata().height(),
                                image.metadata().steps());
            }
            out().println("timings: " + Timings.format(result.timings()));
            out().flush();
        }
        return ExitCodes.OK;
    }

    /** The backend names its options; a CLI user needs the flag that sets it. */
    private static RuntimeException cliWording(RuntimeException e) {
        String backendHint = "Set the backend option provider_fallback=warn";
        if (e instanceof ModelLoadException
                && e.getMessage() != null
                && e.getMessage().contains(backendHint)) {
            return new ModelLoadException(
                    e.getMessage().replace(backendHint, "Add --allow-fallback (backend option provider_fallback=warn)"),
                    e);
        }
        return e;
    }

    /** Image files are read here, within the limits, each named by its role in a refusal. */
    private GenerationRequest.Builder requestBuilder(long baseSeed, GenerationLimits limits) {
        GenerationRequest.Builder b =
                GenerationRequest.builder(prompt).seed(baseSeed).numImages(numImages);
        if (width != null) {
            b.width(width);
        }
        if (height != null) {
            b.height(height);
        }
        if (steps != null) {
            b.steps(steps);
        }
        if (guidance != null) {
            b.guidance(guidance);
        }
        if (initImage != null) {
            b.initImage(ImageFiles.read(initImage, "init image", limits));
        }
        if (strength != null) {
            b.strength(strength);
        }
        if (mask != null) {
            b.mask(ImageFiles.read(mask, "mask", limits));
        }
        for (int i = 0; i < references.size(); i++) {
            b.addReferenceImage(
                    ImageFiles.read(references.get(i), "reference image " + i, limits),
                    references.get(i).toString());
        }
        if (maskCropPadding != null) {
            b.paddingMaskCrop(maskCropPadding);
        }
        return b;
    }

    /** The ONNX backend's options these flags map to: typed, so that no option key is spelled here. */
    private Flux2Pipeline.Builder pipelineBuilder(CancellationToken cancel) {
        OnnxOptions.Builder onnx = OnnxOptions.builder()
                .threads(threads)
                .providerFallback(allowFallback ? ProviderFallback.WARN : ProviderFallback.FAIL)
                .allowSpinning(!noSpinning)
                .fused(!noFused);
        if (ortLibrary != null) {
            onnx.ortLibrary(ortLibrary.toString());
        }
        if (!providers.isEmpty()) {
            onnx.option(OnnxOptions.PROVIDERS, String.join(",", providers));
        }
        if (cpuTuned != null) {
            onnx.option(OnnxOptions.CPU_TUNED, cpuTuned);
        }
        if (attention != null) {
            onnx.option(OnnxOptions.ATTENTION, attention);
        }
        if (gpuWeights != null) {
            onnx.option(OnnxOptions.WEIGHTS, gpuWeights);
        }
        Flux2Pipeline.Builder b = Flux2Pipeline.builder()
                .model(modelOption.resolve(!noProgress, cancel))
                .memoryPolicy(memory);
        onnx.build().asBackendOptions().forEach(b::backendOption);
        return b;
    }

    /** Output files: the given path (or flux2-SEED.png), with -k suffixes when several images are requested. */
    List<Path> outputPaths(long baseSeed) {
        List<Path> paths = new ArrayList<>();
        for (int k = 0; k < numImages; k++) {
            if (output == null) {
                paths.add(Path.of("flux2-" + (baseSeed + k) + ".png"));
            } else if (numImages == 1) {
                paths.add(output);
            } else {
                String name = output.getFileName().toString();
                int dot = name.lastIndexOf('.');
                String stem = dot > 0 ? name.substring(0, dot) : name;
                String ext = dot > 0 ? name.substring(dot) : ".png";
                paths.add(output.resolveSibling(stem + "-" + k + ext));
            }
        }
        return paths;
    }

    /** A seed in [0, 2^32): short enough to type back, and any value reproduces the image. */
    static long randomSeed() {
        return Integer.toUnsignedLong(new SecureRandom().nextInt());
    }
}
