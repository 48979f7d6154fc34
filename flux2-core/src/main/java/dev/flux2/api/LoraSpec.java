package dev.flux2.api;

import java.nio.file.Path;
import java.util.Objects;

/**
 * One LoRA adapter of a request: the safetensors file and the scale its low-rank update is multiplied by (diffusers'
 * {@code set_adapters(..., adapter_weights=[scale])}). A value; the file is neither read nor checked here (the
 * pipeline reads it, by content, before any model work). Several specs in a request stack in their order.
 *
 * @param file the LoRA file (diffusers/PEFT, BFL/ai-toolkit or kohya layout); not null
 * @param scale the adapter's weight: 1 applies it as trained, 0 leaves the image unchanged; finite (negative values
 *     are allowed, as in diffusers)
 */
public record LoraSpec(Path file, double scale) {
    /** Checks the values. @throws InvalidRequestException when the file is missing or the scale is not finite */
    public LoraSpec {
        if (file == null) {
            throw new InvalidRequestException("a LoRA needs a file, got none (null)");
        }
        if (!Double.isFinite(scale)) {
            throw new InvalidRequestException("LoRA scale must be a finite number, got " + scale + " for " + file);
        }
    }

    /** @return the file and its scale, {@code file:scale} */
    @Override
    public String toString() {
        return file + ":" + scale;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LoraSpec s && file.equals(s.file) && Double.compare(scale, s.scale) == 0;
    }

    @Override
    public int hashCode() {
        return Objects.hash(file, scale);
    }
}
