package dev.flux2.onnx.lora;

import java.nio.file.Path;
import java.util.List;

/**
 * A LoRA file read and checked: the low-rank updates it makes to the FLUX.2 transformer.
 *
 * @param file the file read
 * @param sha256 the hex SHA-256 of its bytes, the identity under which it is cached and recorded
 * @param format the layout it was written in
 * @param layers the updates, one per adapted layer, in module-path order
 */
public record LoraAdapterFile(Path file, String sha256, LoraFormat format, List<LoraLayer> layers) {
    /** Copies the list. */
    public LoraAdapterFile {
        layers = List.copyOf(layers);
    }

    /** @return the number of adapted layers */
    public int layerCount() {
        return layers.size();
    }
}
