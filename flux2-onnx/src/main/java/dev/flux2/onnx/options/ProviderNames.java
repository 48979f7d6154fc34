package dev.flux2.onnx.options;

import ai.onnxruntime.OrtProvider;
import dev.flux2.api.InvalidRequestException;
import java.util.EnumSet;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The execution provider names of the backend option {@code providers} ({@code cpu}, {@code cuda},
 * {@code tensorrt}, {@code coreml}, {@code directml}, {@code rocm}, {@code dnnl}, {@code openvino}, {@code nnapi},
 * {@code acl}, {@code xnnpack}, {@code qnn}, {@code webgpu}, and the aliases {@code trt}, {@code dml},
 * {@code onednn}), read in one place: by {@link OnnxOptions} when the option is parsed, so that a typo fails before
 * anything is loaded, and by the backend when it enables the providers. Stateless.
 */
public final class ProviderNames {
    private ProviderNames() {}

    /**
     * @param name a provider name, case-insensitive, with or without separators ({@code TensorRT}, {@code core_ml})
     * @return the provider
     * @throws InvalidRequestException naming the bad value and the known names
     */
    public static OrtProvider parse(String name) {
        String key = normalise(name);
        switch (key) {
            case "trt" -> key = "tensorrt";
            case "dml" -> key = "directml";
            case "onednn" -> key = "dnnl";
            default -> {}
        }
        for (OrtProvider p : OrtProvider.values()) {
            if (normalise(p.name()).equals(key)) {
                return p;
            }
        }
        throw new InvalidRequestException("unknown execution provider '" + name + "'; known providers: "
                + EnumSet.allOf(OrtProvider.class).stream()
                        .map(p -> normalise(p.name()))
                        .collect(Collectors.joining(", ")));
    }

    private static String normalise(String name) {
        return name == null ? "" : name.trim().toLowerCase(Locale.ROOT).replaceAll("[-_ ]", "");
    }
}
