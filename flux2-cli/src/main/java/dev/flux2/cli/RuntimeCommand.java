package dev.flux2.cli;

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
 * against its pinned sha512 ({@link WebGpuRuntime}); {@code flux2 runtime path webgpu} prints the verified library.
 * Exits with 5 when the runtime cannot be installed or found.
 */
@Command(
        name = "runtime",
        mixinStandardHelpOptions = true,
        description = {
            "Install or locate the WebGPU ONNX Runtime library (from the official onnxruntime-node package of the same"
                    + " version, checked against a pinned sha512).",
            "Exits with 5 when it cannot be installed or is missing or corrupt."
        })
final class RuntimeCommand extends BaseCommand {
    @Parameters(index = "0", paramLabel = "ACTION", description = "install | path")
    String action;

    @Parameters(index = "1", paramLabel = "RUNTIME", description = "webgpu")
    String runtime;

    @Option(
            names = "--from",
            paramLabel = "TARBALL|DIR",
            description = "Take the files from an onnxruntime-node-<version>.tgz or a folder holding the package (or"
                    + " the library itself) instead of running `npm pack onnxruntime-node@<version>`.")
    Path from;

    @Option(
            names = "--home",
            paramLabel = "DIR",
            description = "The flux2 home folder (default $FLUX2_HOME, else the user cache folder flux2-java).")
    Path home;

    @Override
    public Integer call() {
        if (!"webgpu".equalsIgnoreCase(runtime)) {
            throw new ParameterException(spec.commandLine(), "unknown runtime '" + runtime + "' (known: webgpu)");
        }
        Path h = home != null ? home : WebGpuRuntime.defaultHome();
        switch (action) {
            case "install" -> {
                RuntimeInstallation inst = WebGpuRuntime.install(h, Optional.ofNullable(from));
                out().println((inst.installedNow() ? "installed: " : "already installed: ") + inst.library()
                        + " (ONNX Runtime " + inst.ortVersion() + ", " + inst.platform()
                        + (inst.installedNow() ? ", from " + inst.source() : "")
                        + ", sha512 verified)");
            }
            case "path" -> out().println(WebGpuRuntime.locate(h));
            default ->
                throw new ParameterException(
                        spec.commandLine(), "unknown action '" + action + "' (known: install, path)");
        }
        out().flush();
        return ExitCodes.OK;
    }
}
