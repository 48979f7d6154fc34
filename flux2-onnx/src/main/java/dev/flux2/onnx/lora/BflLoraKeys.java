package dev.flux2.onnx.lora;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * BFL / ai-toolkit LoRA keys ({@code diffusion_model.double_blocks.N.img_attn.qkv.lora_A.weight}, …) renamed to
 * diffusers' module paths, as {@code _convert_non_diffusers_flux2_lora_to_diffusers} does
 * (src/diffusers/loaders/lora_conversion_utils.py @58eb52c, lines 2412–2551): a fused q/k/v {@code lora_A} is
 * shared by the three projections and its {@code lora_B} split in three equal row blocks; {@code single_blocks.N.linear1}
 * goes onto the fused qkv+MLP projection unsplit; keys already in diffusers' block names pass through. Keys left
 * over are refused, as diffusers raises on them.
 */
final class BflLoraKeys {
    private static final String PREFIX = "diffusion_model.";
    private static final List<String[]> EXPANDED_PREFIXES = List.of(
            new String[] {"single_transformer_blocks.", "single_transformer_blocks."},
            new String[] {"transformer_blocks.", "transformer_blocks."},
            new String[] {"sformer_blocks.", "transformer_blocks."});
    private static final String[][] PROJECTIONS = {
        {"img_attn.proj", "attn.to_out.0"}, {"txt_attn.proj", "attn.to_add_out"}
    };
    private static final String[][] MLPS = {
        {"img_mlp.0", "ff.linear_in"}, {"img_mlp.2", "ff.linear_out"},
        {"txt_mlp.0", "ff_context.linear_in"}, {"txt_mlp.2", "ff_context.linear_out"}
    };
    private static final String[][] EXTRAS = {
        {"img_in", "x_embedder"},
        {"txt_in", "context_embedder"},
        {"time_in.in_layer", "time_guidance_embed.timestep_embedder.linear_1"},
        {"time_in.out_layer", "time_guidance_embed.timestep_embedder.linear_2"},
        {"guidance_in.in_layer", "time_guidance_embed.guidance_embedder.linear_1"},
        {"guidance_in.out_layer", "time_guidance_embed.guidance_embedder.linear_2"},
        {"final_layer.linear", "proj_out"},
        {"final_layer.adaLN_modulation.1", "norm_out.linear"},
        {"single_stream_modulation.lin", "single_stream_modulation.linear"},
        {"double_stream_modulation_img.lin", "double_stream_modulation_img.linear"},
        {"double_stream_modulation_txt.lin", "double_stream_modulation_txt.linear"}
    };
    private static final String[] LORA_KEYS = {"lora_A", "lora_B"};

    private BflLoraKeys() {}

    /**
     * @param tensors the file's tensors, every key starting with {@code diffusion_model.}
     * @param unmapped receives the keys that map to nothing
     * @return the tensors under diffusers' names ({@code transformer.<module>.lora_A.weight})
     */
    static Map<String, LoraTensor> toDiffusers(Map<String, LoraTensor> tensors, List<String> unmapped) {
        Map<String, LoraTensor> original = new LinkedHashMap<>();
        boolean downUp = tensors.keySet().stream().anyMatch(k -> k.contains("lora_down") || k.contains("lora_up"));
        for (Map.Entry<String, LoraTensor> e : tensors.entrySet()) {
            String k = e.getKey().substring(PREFIX.length());
            if (downUp) {
                k = k.replace("lora_down", "lora_A").replace("lora_up", "lora_B");
            }
            original.put(k, e.getValue());
        }
        Map<String, LoraTensor> converted = new LinkedHashMap<>();
        for (String key : List.copyOf(original.keySet())) {
            for (String[] p : EXPANDED_PREFIXES) {
                if (key.startsWith(p[0])) {
                    converted.put(p[1] + key.substring(p[0].length()), original.remove(key));
                    break;
                }
            }
        }
        int doubles = 0;
        int singles = 0;
        for (String key : original.keySet()) {
            String[] parts = key.split("\\.");
            if (parts.length > 1 && parts[1].matches("\\d{1,6}")) {
                if (key.startsWith("single_blocks.")) {
                    singles = Math.max(singles, Integer.parseInt(parts[1]) + 1);
                } else if (key.startsWith("double_blocks.")) {
                    doubles = Math.max(doubles, Integer.parseInt(parts[1]) + 1);
                }
            }
        }
        for (int s = 0; s < singles; s++) {
            String attn = "single_transformer_blocks." + s + ".attn";
            for (String lk : LORA_KEYS) {
                move(
                        original,
                        converted,
                        "single_blocks." + s + ".linear1." + lk + ".weight",
                        attn + ".to_qkv_mlp_proj." + lk + ".weight");
                move(
                        original,
                        converted,
                        "single_blocks." + s + ".linear2." + lk + ".weight",
                        attn + ".to_out." + lk + ".weight");
            }
        }
        for (int d = 0; d < doubles; d++) {
            String block = "transformer_blocks." + d;
            for (String lk : LORA_KEYS) {
                for (String attnType : new String[] {"img_attn", "txt_attn"}) {
                    LoraTensor qkv = original.remove("double_blocks." + d + "." + attnType + ".qkv." + lk + ".weight");
                    if (qkv == null) {
                        continue;
                    }
                    String[] projections = attnType.equals("img_attn")
                            ? new String[] {"to_q", "to_k", "to_v"}
                            : new String[] {"add_q_proj", "add_k_proj", "add_v_proj"};
                    if (lk.equals("lora_A")) {
                        for (String proj : projections) {
                            converted.put(block + ".attn." + proj + "." + lk + ".weight", qkv);
                        }
                    } else {
                        LoraTensor[] chunks = LoraFiles.chunkRows(qkv, 3);
                        for (int i = 0; i < 3; i++) {
                            converted.put(block + ".attn." + projections[i] + "." + lk + ".weight", chunks[i]);
                        }
                    }
                }
            }
            for (String[][] table : new String[][][] {PROJECTIONS, MLPS}) {
                for (String[] m : table) {
                    for (String lk : LORA_KEYS) {
                        move(
                                original,
                                converted,
                                "double_blocks." + d + "." + m[0] + "." + lk + ".weight",
                                block + "." + m[1] + "." + lk + ".weight");
                    }
                }
            }
        }
        for (String[] m : EXTRAS) {
            for (String lk : LORA_KEYS) {
                move(original, converted, m[0] + "." + lk + ".weight", m[1] + "." + lk + ".weight");
            }
        }
        for (String left : original.keySet()) {
            unmapped.add(PREFIX + left);
        }
        Map<String, LoraTensor> prefixed = new LinkedHashMap<>();
        converted.forEach((k, v) -> prefixed.put("transformer." + k, v));
        return prefixed;
    }

    private static void move(Map<String, LoraTensor> from, Map<String, LoraTensor> to, String key, String as) {
        LoraTensor t = from.remove(key);
        if (t != null) {
            to.put(as, t);
        }
    }
}
