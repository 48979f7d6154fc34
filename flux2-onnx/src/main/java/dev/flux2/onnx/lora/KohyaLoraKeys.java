package dev.flux2.onnx.lora;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * kohya sd-scripts LoRA keys ({@code lora_unet_double_blocks_N_img_attn_qkv.lora_down.weight}, {@code .alpha})
 * converted to diffusers' names as {@code _convert_kohya_flux2_lora_to_diffusers} does
 * (src/diffusers/loaders/lora_conversion_utils.py @58eb52c, lines 2554–2736): the scale alpha / rank (alpha = rank
 * when absent) is folded into the factors, split between down and up by powers of two and rounded to the stored
 * element type; a fused q/k/v is split in three, block-diagonally when its up matrix is sparse. diffusers warns and
 * ignores keys it cannot map; here they are refused, as a LoRA half applied is a silently wrong image.
 */
final class KohyaLoraKeys {
    private static final String[][] DOUBLE_SINGLE = {
        {"img_attn_proj", "attn.to_out.0"},
        {"txt_attn_proj", "attn.to_add_out"},
        {"img_mlp_0", "ff.linear_in"},
        {"img_mlp_2", "ff.linear_out"},
        {"txt_mlp_0", "ff_context.linear_in"},
        {"txt_mlp_2", "ff_context.linear_out"}
    };
    private static final String[][] EXTRAS = {
        {"lora_unet_img_in", "x_embedder"},
        {"lora_unet_txt_in", "context_embedder"},
        {"lora_unet_time_in_in_layer", "time_guidance_embed.timestep_embedder.linear_1"},
        {"lora_unet_time_in_out_layer", "time_guidance_embed.timestep_embedder.linear_2"},
        {"lora_unet_final_layer_linear", "proj_out"}
    };

    private KohyaLoraKeys() {}

    /**
     * @param tensors the file's tensors (consumed: the map is copied first)
     * @param unmapped receives the keys that map to nothing
     * @return the factors under diffusers' names ({@code transformer.<module>.lora_A.weight}), scale folded in
     */
    static Map<String, LoraTensor> toDiffusers(Map<String, LoraTensor> tensors, List<String> unmapped) {
        Map<String, LoraTensor> sds = new LinkedHashMap<>(tensors);
        int doubles = 0;
        int singles = 0;
        for (String key : sds.keySet()) {
            String[] parts = key.split("_");
            if (parts.length > 4 && parts[4].matches("\\d{1,6}")) {
                if (key.startsWith("lora_unet_double_blocks_")) {
                    doubles = Math.max(doubles, Integer.parseInt(parts[4]) + 1);
                } else if (key.startsWith("lora_unet_single_blocks_")) {
                    singles = Math.max(singles, Integer.parseInt(parts[4]) + 1);
                }
            }
        }
        Map<String, LoraTensor> ait = new LinkedHashMap<>();
        for (int i = 0; i < doubles; i++) {
            String src = "lora_unet_double_blocks_" + i + "_";
            String dst = "transformer.transformer_blocks." + i + ".";
            one(sds, ait, src + DOUBLE_SINGLE[0][0], dst + DOUBLE_SINGLE[0][1]);
            cat(sds, ait, src + "img_attn_qkv", dst + "attn.to_q", dst + "attn.to_k", dst + "attn.to_v");
            one(sds, ait, src + DOUBLE_SINGLE[1][0], dst + DOUBLE_SINGLE[1][1]);
            cat(
                    sds,
                    ait,
                    src + "txt_attn_qkv",
                    dst + "attn.add_q_proj",
                    dst + "attn.add_k_proj",
                    dst + "attn.add_v_proj");
            for (int m = 2; m < DOUBLE_SINGLE.length; m++) {
                one(sds, ait, src + DOUBLE_SINGLE[m][0], dst + DOUBLE_SINGLE[m][1]);
            }
        }
        for (int i = 0; i < singles; i++) {
            String src = "lora_unet_single_blocks_" + i + "_";
            String dst = "transformer.single_transformer_blocks." + i + ".attn.";
            one(sds, ait, src + "linear1", dst + "to_qkv_mlp_proj");
            one(sds, ait, src + "linear2", dst + "to_out");
        }
        for (String[] m : EXTRAS) {
            one(sds, ait, m[0], "transformer." + m[1]);
        }
        unmapped.addAll(sds.keySet());
        return ait;
    }

    /** {@code _convert_to_ai_toolkit}: alpha read as a Python float ({@code .item()}), scale in double. */
    private static void one(Map<String, LoraTensor> sds, Map<String, LoraTensor> ait, String src, String dst) {
        LoraTensor down = sds.remove(src + ".lora_down.weight");
        if (down == null) {
            return;
        }
        LoraTensor up = LoraFiles.require(sds.remove(src + ".lora_up.weight"), src + ".lora_up.weight");
        LoraFiles.requireMatrix(down);
        int rank = down.rows();
        LoraTensor alphaTensor = sds.remove(src + ".alpha");
        double alpha = alphaTensor == null ? rank : LoraFiles.scalar(alphaTensor);
        double scaleDown = alpha / rank;
        double scaleUp = 1.0;
        while (scaleDown * 2 < scaleUp) {
            scaleDown *= 2;
            scaleUp /= 2;
        }
        ait.put(dst + ".lora_A.weight", down.times(scaleDown));
        ait.put(dst + ".lora_B.weight", LoraFiles.requireMatrix(up).times(scaleUp));
    }

    /**
     * {@code _convert_to_ai_toolkit_cat}: here alpha stays a tensor, so the scale alpha / rank is a value of
     * alpha's element type (of the down factor's when alpha is absent) and is doubled in that type.
     */
    private static void cat(Map<String, LoraTensor> sds, Map<String, LoraTensor> ait, String src, String... dsts) {
        LoraTensor down = sds.remove(src + ".lora_down.weight");
        if (down == null) {
            return;
        }
        LoraTensor up = LoraFiles.requireMatrix(
                LoraFiles.require(sds.remove(src + ".lora_up.weight"), src + ".lora_up.weight"));
        LoraFiles.requireMatrix(down);
        int rank = down.rows();
        LoraTensor alphaTensor = sds.remove(src + ".alpha");
        SafetensorsFile.Dtype scaleType = alphaTensor == null ? down.dtype() : alphaTensor.dtype();
        double alpha = alphaTensor == null ? LoraTensor.roundToDtype(rank, scaleType) : LoraFiles.scalar(alphaTensor);
        float scaleDown = LoraTensor.roundToDtype((float) (alpha / rank), scaleType);
        double scaleUp = 1.0;
        while (LoraTensor.roundToDtype(scaleDown * 2, scaleType) < scaleUp) {
            scaleDown = LoraTensor.roundToDtype(scaleDown * 2, scaleType);
            scaleUp /= 2;
        }
        down = down.times(scaleDown);
        up = up.times(scaleUp);
        int splits = dsts.length;
        if (up.rows() % splits != 0) {
            throw LoraFiles.bad(
                    src + ".lora_up.weight has " + up.rows() + " rows; a fused q/k/v needs a multiple of " + splits);
        }
        int dim = up.rows() / splits;
        boolean sparse = false;
        if (rank % splits == 0) {
            int aitRank = rank / splits;
            sparse = true;
            for (int j = 0; j < splits && sparse; j++) {
                for (int k = 0; k < splits && sparse; k++) {
                    if (j != k && !up.blockIsZero(j * dim, (j + 1) * dim, k * aitRank, (k + 1) * aitRank)) {
                        sparse = false;
                    }
                }
            }
            if (sparse) {
                for (int j = 0; j < splits; j++) {
                    ait.put(dsts[j] + ".lora_A.weight", down.rows(j * aitRank, (j + 1) * aitRank));
                    ait.put(
                            dsts[j] + ".lora_B.weight",
                            up.block(j * dim, (j + 1) * dim, j * aitRank, (j + 1) * aitRank));
                }
                return;
            }
        }
        for (int j = 0; j < splits; j++) {
            ait.put(dsts[j] + ".lora_A.weight", down);
            ait.put(dsts[j] + ".lora_B.weight", up.rows(j * dim, (j + 1) * dim));
        }
    }
}
