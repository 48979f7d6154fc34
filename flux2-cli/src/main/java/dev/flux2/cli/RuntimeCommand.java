package dev.flux2.cli;

import dev.flux2.onnx.runtime.CudaRuntime;
import dev.flux2.onnx.runtime.RuntimeInstallation;
import dev.flux2.onnx.runtime.WebGpuRuntime;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/**
 * {@code flux2 runtime install webgpu [--from TARBALL|DIR] [--home DIR]}: installs the WebGPU-capable ONNX Runtime
 * library of the Java binding's version into {@code $FLUX2_HOME/runtime/<ort-version>/<os-arch>/}, verified
 * against its pinned sha512 ({@link WebGpuRuntime}); {@code flux2 runtime install cuda [--from JAR|DIR]} installs the
 * native folder of the {@code onnxruntime_gpu} jar of that version into
 * {@code $FLUX2_HOME/runtime/<ort-version>/<os-arch>-cuda/} ({@link CudaRuntime}); {@code flux2 runtime path
 * webgpu|cuda} prints the verified library or folder. Exits with 5 when the runtime cannot be installed or found.
 */
@Command(
        name = "runtime",
        mixinStandardHelpOptions = true,
        description = {
            "Install or locate an ONNX Runtime native runtime of the Java binding's version, each file checked against"
                    + " a pinned sha512: webgpu (the official onnxruntime-node package's library) or cuda (the native"
                    + " folder of the Maven artifact com.microsoft.onnxruntime:onnxruntime_gpu).",
            "Exits with 5 when it cannot be installed or is missing or corrupt."
        })
final class RuntimeCommand extends BaseCommand {
    @Parameters(index = "0", paramLabel = "ACTION", description = "install | path")
    String action;

    @Parameters(index = "1", paramLabel = "RUNTIME", description = "webgpu | cuda")
    String runtime;

    @Option(
            names = "--from",
            paramLabel = "FILE|DIR",
            description = "webgpu: take the files from an onnxruntime-node-<version>.tgz or a folder holding the"
                    + " package (or the library itself) instead of running `npm pack onnxruntime-node@<version>`."
                    + " cuda: from an onnxruntime_gpu-<version>.jar or a folder holding its native files (the jar's"
                    + " ai/onnxruntime/native/<os-arch> folder) instead of the local Maven repository or `mvn`.")
    Path from;

    @Option(
            names = "--home",
            paramLabel = "DIR",
            description = "The flux2 home folder (default $FLUX2_HOME, else the user cache folder flux2-java).")
    Path home;

    @Override
    public Integer call() {
        boolean cuda = "cuda".equalsIgnoreCase(runtime);
        if (!cuda && !"webgpu".equalsIgnoreCase(runtime)) {
            throw new ParameterException(spec.commandLine(), "unknown runtime '" + runtime + "' (known: webgpu, cuda)");
        }
        Path h = home != null ? home : WebGpuRuntime.defaultHome();
        switch (action) {
            case "install" -> {
                RuntimeInstallation inst = cuda
                        ? CudaRuntime.install(h, Optional.ofNullable(from))
                        : WebGpuRuntime.install(h, Optional.ofNullable(from));
                out().println((inst.installedNow() ? "installed: " : "already installed: ")
                        + (cuda ? inst.folder() : inst.library())
                        + " (ONNX Runtime " + inst.ortVersion() + ", " + inst.platform()
                        + (inst.installedNow() ? ", from " + inst.source() : "")
                        + ", sha512 verified)");
            }
            case "path" -> out().println(cuda ? CudaRuntime.locate(h) : WebGpuRuntime.locate(h));
            default ->
                throw new ParameterException(
                        spec.commandLine(), "unknown action '" + action + "' (known: install, path)");
        }
        out().flush();
        return ExitCodes.OK;
    }
}
