package dev.flux2.cli;

import ai.onnxruntime.OrtProvider;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flux2.Flux2Models;
import dev.flux2.api.ModelRole;
import dev.flux2.api.ModelSummary;
import dev.flux2.api.ModelSummary.FileEntry;
import dev.flux2.api.ModelSummary.GraphEntry;
import dev.flux2.api.ModelSummary.TensorEntry;
import dev.flux2.hub.FileSelection;
import dev.flux2.onnx.options.ProviderNames;
import dev.flux2.onnx.runtime.OrtNativeLibrary;
import dev.flux2.onnx.runtime.RuntimeReport;
import dev.flux2.onnx.runtime.WebGpuRuntime;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code flux2 info}: a model's layout (how its parts were found), files and sizes, each graph's inputs and outputs
 * with the part it plays and which tensor plays which part, and the backend's details (for ONNX: the defaults, the
 * fused-denoiser convention detected, the execution providers of this ONNX Runtime, every problem found), without
 * loading weights; {@code --component} describes a composed model. A repo id fetches everything but the external
 * data: the shards are checked against the sizes of the hub's file list (detail {@code shard_sizes}). Exits with 3 when the parts found do not make a
 * model (the problems are printed on stderr). Exits with 3 when a file is missing, has the wrong size
 * or lists shards that do not add up; an optional file that is absent is not an error.
 */
@Command(
        name = "info",
        mixinStandardHelpOptions = true,
        description = {
            "Describe a model: layout, files and sizes, graph inputs/outputs and their roles, fused convention,"
                    + " providers.",
            "Exits with 3 when it reports any problem (parts that do not make a model, a file missing or of the wrong"
                    + " size, a graph whose external data does not fit its shards)."
        })
final class InfoCommand extends BaseCommand {
    @Mixin
    ModelOption modelOption;

    @Mixin
    ComponentOption componentOption;

    @Option(names = "--json", description = "Print the summary as JSON.")
    boolean json;

    @Option(
            names = "--provider",
            paramLabel = "NAME",
            split = ",",
            description = "Also report the ONNX Runtime library and device for these providers: webgpu loads the"
                    + " installed WebGPU runtime and runs a one-node graph on the device; cuda loads the installed"
                    + " CUDA runtime (or the class path's onnxruntime_gpu natives), checks the CUDA libraries, lists"
                    + " the GPUs (name, memory, compute capability, by nvidia-smi) and runs a one-node graph on"
                    + " device 0.")
    List<String> providers = new java.util.ArrayList<>();

    @Option(
            names = "--ort-library",
            paramLabel = "PATH",
            description = "The ONNX Runtime native library to load (as generate --ort-library).")
    Path ortLibrary;

    @Override
    public Integer call() throws IOException {
        Map<ModelRole, Path> components = componentOption.resolve();
        Set<OrtProvider> asked = providers.stream()
                .flatMap(p -> Stream.of(p.split(",")))
                .filter(p -> !p.isBlank())
                .map(ProviderNames::parse)
                .collect(Collectors.toCollection(() -> EnumSet.noneOf(OrtProvider.class)));
        Map<String, String> runtime = Map.of();
        if (asked.contains(OrtProvider.WEBGPU)
                || asked.contains(OrtProvider.CUDA)
                || ortLibrary != null
                || System.getenv(OrtNativeLibrary.LIBRARY_ENV) != null) {
            // Before the inspection, which initialises ONNX Runtime: the library is chosen once per JVM. A library
            // chosen by the user that cannot be used is a runtime error (exit 5), never "Problems: none".
            runtime = RuntimeReport.of(
                    Optional.ofNullable(ortLibrary).map(Path::toString), asked, WebGpuRuntime.defaultHome());
        }
        // A repo id fetches the config, manifests, tokenizer and graphs, not the external data: each shard is
        // checked against the size the hub's file list gives it (the detail shard_sizes says so).
        ModelOption.PartialModel model = modelOption.resolvePart(true, FileSelection.WITHOUT_EXTERNAL_DATA);
        ModelSummary summary = Flux2Models.inspect(model.directory(), components, model.listedSizes());
        if (!runtime.isEmpty()) {
            Map<String, String> details = new java.util.LinkedHashMap<>(summary.details());
            details.putAll(runtime);
            summary = new ModelSummary(
                    summary.directory(),
                    summary.backend(),
                    summary.variant(),
                    summary.files(),
                    summary.graphs(),
                    details);
        }
        if (json) {
            out().println(toJson(summary));
        } else {
            print(summary, out());
        }
        out().flush();
        if (!summary.partsComplete()) {
            err().println("flux2: model error: the parts found do not make a model: "
                    + summary.problems().orElse(""));
            err().flush();
            return ExitCodes.MODEL;
        }
        List<FileEntry> bad = summary.files().stream().filter(f -> !f.ok()).toList();
        Optional<String> problems = summary.problems();
        if (!bad.isEmpty()) {
            err().println("flux2: model error: " + bad.size() + " file(s) missing, of the wrong size or listing"
                    + " wrong shards: "
                    + String.join(", ", bad.stream().map(FileEntry::path).toList()));
        }
        problems.ifPresent(p -> err().println("flux2: model error: " + p));
        err().flush();
        // Any problem reported is exit 3: a bundle that does not open must not look "ok" to a script.
        return bad.isEmpty() && problems.isEmpty() ? ExitCodes.OK : ExitCodes.MODEL;
    }

    private static void print(ModelSummary s, PrintWriter out) {
        out.println("Bundle:   " + s.directory().toAbsolutePath());
        out.println("Backend:  " + s.backend());
        out.println("Variant:  " + s.variant());
        if (s.layout().isPresent()) {
            out.println("Layout:   " + s.layout().get());
        }
        out.println();
        long total =
                s.files().stream().mapToLong(f -> Math.max(0, f.actualBytes())).sum();
        out.printf(Locale.ROOT, "Files (%d, %s):%n", s.files().size(), Sizes.human(total));
        for (FileEntry f : s.files()) {
            String expected = f.present() && f.expectedBytes() >= 0 && f.expectedBytes() != f.actualBytes()
                    ? " (expected " + f.expectedBytes() + ")"
                    : "";
            out.printf(
                    Locale.ROOT,
                    "  %-7s %15s  %s%s%s%n",
                    status(f),
                    f.present() ? String.format(Locale.ROOT, "%,d", f.actualBytes()) : "-",
                    f.path(),
                    expected,
                    f.present() && !f.ok() ? ": " + f.problem() : "");
        }
        out.println();
        out.println("Graphs:");
        for (GraphEntry g : s.graphs()) {
            out.println("  " + g.key() + "  (" + g.file() + ")" + (g.role().isEmpty() ? "" : "  " + g.role()));
            for (TensorEntry t : g.inputs()) {
                out.println("    in   " + t.name() + "  " + t.elementType() + " " + t.shape());
            }
            for (TensorEntry t : g.outputs()) {
                out.println("    out  " + t.name() + "  " + t.elementType() + " " + t.shape());
            }
            // Which tensor plays which part, as the backend feeds and reads them.
            for (Map.Entry<String, String> m : g.mapping().entrySet()) {
                out.println("    role " + m.getValue() + " = " + m.getKey());
            }
        }
        out.println();
        out.println("Details:");
        // In the backend's order; snake_case keys read as words ("fused_denoiser_convention" -> "Fused denoiser
        // convention"). --json prints the keys as they are.
        for (Map.Entry<String, String> d : s.details().entrySet()) {
            out.println("  " + label(d.getKey()) + ": " + d.getValue());
        }
    }

    private static String status(FileEntry f) {
        if (!f.present()) {
            return f.optional() ? "absent" : "MISSING";
        }
        if (f.ok()) {
            return "ok";
        }
        return f.expectedBytes() >= 0 && f.expectedBytes() != f.actualBytes() ? "SIZE?" : "BAD";
    }

    private static String label(String key) {
        String words = key.replace('_', ' ');
        return words.isEmpty() ? words : Character.toUpperCase(words.charAt(0)) + words.substring(1);
    }

    private static String toJson(ModelSummary s) throws IOException {
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = mapper.valueToTree(s);
        root.put("directory", s.directory().toAbsolutePath().toString());
        return mapper.writeValueAsString(root);
    }
}
