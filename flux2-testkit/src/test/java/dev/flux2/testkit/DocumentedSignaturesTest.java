package dev.flux2.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.TensorInfo;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Graph I/O as ONNX Runtime reports it, against the table of docs/bundle-format.md §8 and the symbolic names of its §7,
 * written out literally here (independent of the writer's own signature table). Entries are {@code name:TYPE:dims} with
 * dims fixed sizes, symbolic names, or {@code ?} for a symbolic dimension the real bundle does not name. Spec: text
 * 64×32, hd 8.
 */
class DocumentedSignaturesTest {
    private static final String R = TensorNames.VAE_RESIDUAL;
    private static final List<String> TRANSFORMER_IN = List.of(
            "x:FLOAT16:batch,image_seq,128",
            "x_ids:FLOAT:batch,image_seq,4",
            "timesteps:FLOAT16:1",
            "ctx:FLOAT16:batch,text_seq,32",
            "ctx_ids:FLOAT:batch,text_seq,4");

    @TempDir
    Path dir;

    @Test
    void engineBundle() throws Exception {
        SyntheticBundle bundle = SyntheticBundleWriter.write(
                SyntheticBundleSpec.builder().fused(FusedConvention.ENGINE).build(), dir);
        checkCommon(bundle);
        check(
                bundle,
                "transformer_fused_4step",
                List.of(
                        "x:FLOAT16:batch,image_seq,128",
                        "x_ids:FLOAT:batch,image_seq,4",
                        "ctx:FLOAT16:batch,text_seq,32",
                        "ctx_ids:FLOAT:batch,text_seq,4",
                        "timestep_0:FLOAT16:1",
                        "timestep_1:FLOAT16:1",
                        "timestep_2:FLOAT16:1",
                        "timestep_3:FLOAT16:1",
                        "dt_0:FLOAT:1",
                        "dt_1:FLOAT:1",
                        "dt_2:FLOAT:1",
                        "dt_3:FLOAT:1"),
                List.of("latent:FLOAT16:batch,image_seq,128"));
    }

    @Test
    void listedBundle() throws Exception {
        SyntheticBundle bundle = SyntheticBundleWriter.write(
                SyntheticBundleSpec.builder().fused(FusedConvention.LISTED).build(), dir);
        checkCommon(bundle);
        check(
                bundle,
                "transformer_fused_4step",
                List.of(
                        "x:FLOAT16:batch,image_seq,128",
                        "x_ids:FLOAT:batch,image_seq,4",
                        "timesteps:FLOAT16:4",
                        "ctx:FLOAT16:batch,text_seq,32",
                        "ctx_ids:FLOAT:batch,text_seq,4"),
                List.of("latent:FLOAT16:batch,image_seq,128"));
    }

    private void checkCommon(SyntheticBundle b) throws Exception {
        check(
                b,
                "text_encoder",
                List.of("input_ids:INT64:batch,text_seq", "attention_mask:INT64:batch,text_seq"),
                List.of("ctx:FLOAT16:batch,text_seq,32"));
        check(b, "transformer", TRANSFORMER_IN, List.of("pred:FLOAT16:batch,image_seq,128"));
        check(
                b,
                "vae_decoder_pre",
                List.of("z:FLOAT16:batch,128,latent_height,latent_width"),
                List.of(
                        R + ":FLOAT16:1,16,?,?",
                        "/decoder/attn_1/Mul_6_output_0:FLOAT16:1,1,kv_seq,8",
                        "/decoder/attn_1/Mul_7_output_0:FLOAT16:1,1,8,kv_seq",
                        "/decoder/attn_1/Reshape_2_output_0:FLOAT16:1,1,kv_seq,8"));
        check(
                b,
                "vae_decoder_attn_chunk",
                List.of(
                        "q_chunk:FLOAT16:1,heads,chunk_seq,8",
                        "kt:FLOAT16:1,heads,8,kv_seq",
                        "v:FLOAT16:1,heads,kv_seq,8"),
                List.of("attn_chunk:FLOAT16:1,heads,chunk_seq,8"));
        check(
                b,
                "vae_decoder_post_stage_0",
                List.of(R + ":FLOAT16:1,16,?,?", "/decoder/attn_1/MatMul_1_output_0:FLOAT16:1,1,kv_seq,8"),
                List.of("/decoder/block.2_2/Add_output_0:FLOAT16:1,8,?,?"));
        check(
                b,
                "vae_decoder_post_stage_1",
                List.of("/decoder/block.2_2/Add_output_0:FLOAT16:1,8,?,?"),
                List.of("/decoder/block.0_3/Add_output_0:FLOAT16:1,4,height,width"));
        check(
                b,
                "vae_decoder_post_stage_2",
                List.of("/decoder/block.0_3/Add_output_0:FLOAT16:1,4,height,width"),
                List.of("/decoder/block.2_3/Add_output_0:FLOAT16:1,4,height,width"));
        check(
                b,
                "vae_decoder_post_stage_3",
                List.of("/decoder/block.2_3/Add_output_0:FLOAT16:1,4,height,width"),
                List.of("image:FLOAT16:1,3,height,width"));
        check(
                b,
                "vae_encoder",
                List.of("image:FLOAT16:1,3,height,width"),
                List.of("z:FLOAT16:1,128,latent_height,latent_width"));
    }

    private static void check(SyntheticBundle b, String key, List<String> inputs, List<String> outputs)
            throws Exception {
        try (OrtHarness ort = OrtHarness.open(b.graphFile(key))) {
            assertEquals(inputs, describe(ort.session().getInputInfo()), key + " inputs");
            assertEquals(outputs, describe(ort.session().getOutputInfo()), key + " outputs");
        }
    }

    private static List<String> describe(Map<String, NodeInfo> infos) {
        List<String> out = new ArrayList<>();
        for (NodeInfo n : infos.values()) {
            TensorInfo t = (TensorInfo) n.getInfo();
            long[] shape = t.getShape();
            String[] names = t.getDimensionNames();
            List<String> dims = new ArrayList<>();
            for (int i = 0; i < shape.length; i++) {
                if (shape[i] >= 0) {
                    dims.add(Long.toString(shape[i]));
                } else {
                    dims.add(isDocumented(names[i]) ? names[i] : "?");
                }
            }
            out.add(n.getName() + ":" + t.type.name() + ":" + String.join(",", dims));
        }
        return out;
    }

    private static boolean isDocumented(String dim) {
        return List.of(
                        "batch",
                        "text_seq",
                        "image_seq",
                        "latent_height",
                        "latent_width",
                        "height",
                        "width",
                        "kv_seq",
                        "chunk_seq",
                        "heads")
                .contains(dim);
    }
}
