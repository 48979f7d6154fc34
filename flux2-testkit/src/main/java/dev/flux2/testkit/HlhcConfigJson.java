package dev.flux2.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes a {@code config.json} like the one hlhc's export carries (its card: the chat-template prefix and suffix,
 * the position-id conventions, the schedule and the reference-image convention). Its schema is not public, so the keys
 * here are made up; some values are deliberately wrong for the synthetic bundle (a text length of 512, a 1360×768
 * size, 28 steps), so a test can tell that the SDK does not read them.
 */
final class HlhcConfigJson {
    /** The file name. */
    static final String FILE = "config.json";

    private HlhcConfigJson() {}

    static void write(Path directory, SyntheticBundleSpec spec) {
        String json = """
                {
                  "_export": "synthetic imitation of hlhc/FLUX.2-klein-4B-onnx's config.json",
                  "source_model": "black-forest-labs/FLUX.2-klein-4B",
                  "text_encoder": {
                    "template_prefix": "<|im_start|>user\\n",
                    "template_suffix": "<|im_end|>\\n<|im_start|>assistant\\n<think>\\n\\n</think>\\n\\n",
                    "max_length": 512,
                    "hidden_state_layers": [9, 18, 27]
                  },
                  "position_ids": {"text": "(0, 0, 0, l)", "image": "(0, h, w, 0)", "dtype": "int64"},
                  "schedule": {
                    "type": "flow_match_euler",
                    "shift": "empirical_mu",
                    "num_inference_steps": 28,
                    "timestep_input": "sigma"
                  },
                  "reference_images": {"t_offset": 10, "max_pixels": 1048576},
                  "default_width": 1360,
                  "default_height": 768,
                  "latent_channels": 128,
                  "unknown_future_key": {"nested": [1, "two", null, {"x": true}]}
                }
                """;
        try {
            Files.writeString(directory.resolve(FILE), json, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + FILE + " in " + directory, e);
        }
    }
}
