package dev.flux2.onnx.bundle;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which graph tensor plays which part, per graph key, as {@code flux2 info} shows it: inputs in the order they are
 * fed, then the outputs read, each with what the backend puts in or takes out. Stateless.
 */
public final class RoleMappings {
    private RoleMappings() {}

    /**
     * @param io the checked graphs
     * @return by graph key: part → tensor name
     */
    public static Map<String, Map<String, String>> of(BundleIo io) {
        Map<String, Map<String, String>> all = new HashMap<>();
        all.put(GraphKeys.TEXT_ENCODER, textEncoder(io.textEncoder()));
        all.put(GraphKeys.TRANSFORMER, transformer(io.transformer()));
        io.fused().ifPresent(f -> all.put(GraphKeys.TRANSFORMER_FUSED, fused(f)));
        if (io.decoder() instanceof UnifiedDecoderIo u) {
            Map<String, String> m = new LinkedHashMap<>();
            m.put("in: latent [1, 128, H/16, W/16], normalised and patchified", u.z().name());
            m.put("out: image [1, 3, H, W] in [-1, 1]", u.image().name());
            all.put(u.key(), m);
        } else if (io.decoder() instanceof VaeDecoderIo split) {
            split(split, all);
        }
        io.vaeEncoder().ifPresent(e -> all.put(GraphKeys.VAE_ENCODER, encoder(e)));
        return all;
    }

    private static Map<String, String> textEncoder(TextEncoderIo t) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("in: token ids [1, L]", t.inputIds().name());
        t.attentionMask().ifPresent(a -> m.put("in: attention mask [1, L] (1 token, 0 pad)", a.name()));
        t.positionIds().ifPresent(p -> m.put("in: position ids [1, L] (0..L-1)", p.name()));
        m.put("out: text context [1, L, D]", t.ctx().name());
        return m;
    }

    private static Map<String, String> transformer(TransformerIo t) {
        Map<String, String> m = shared(t.inputs());
        m.put(
                "in: timestep: diffusers' t/1000, fl32(fl32(1000 sigma)/1000)",
                t.timesteps().name());
        m.put("out: velocity of the noise tokens [1, N+M, 128]", t.pred().name());
        return m;
    }

    private static Map<String, String> shared(TransformerInputs in) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(
                "in: latent tokens [1, N+M, 128] (noise, then reference tokens)",
                in.x().name());
        m.put("in: image ids (t, h, w, 0) [N+M, 4]", in.xIds().name());
        m.put("in: text context [1, L, D]", in.ctx().name());
        m.put("in: text ids (0, 0, 0, l) [L, 4]", in.ctxIds().name());
        return m;
    }

    private static Map<String, String> fused(FusedIo f) {
        if (f.inputs().isEmpty()) {
            return Map.of();
        }
        Map<String, String> m = shared(f.inputs().get());
        List<TensorSignature> ts = f.timestepInputs();
        for (int i = 0; i < ts.size(); i++) {
            m.put(
                    ts.size() == 1 ? "in: sigmas of the " + f.steps() + " steps" : "in: sigma " + i,
                    ts.get(i).name());
        }
        for (int i = 0; i < f.dtInputs().size(); i++) {
            m.put(
                    "in: dt " + i + " (sigma " + (i + 1) + " - sigma " + i + ")",
                    f.dtInputs().get(i).name());
        }
        f.latent().ifPresent(l -> m.put("out: final latent tokens [1, N, 128]", l.name()));
        return m;
    }

    private static void split(VaeDecoderIo d, Map<String, Map<String, String>> all) {
        Map<String, String> pre = new LinkedHashMap<>();
        pre.put("in: latent [1, 128, H/16, W/16], normalised and patchified", d.z().name());
        pre.put("out: residual", d.residual().name());
        pre.put("out: attention q", d.q().name());
        pre.put("out: attention k transposed", d.kt().name());
        pre.put("out: attention v", d.v().name());
        all.put(d.preKey(), pre);
        VaeDecoderIo.Attention a = d.attention();
        Map<String, String> attn = new LinkedHashMap<>();
        attn.put("in: query rows", a.qChunk().name());
        attn.put("in: k transposed", a.kt().name());
        attn.put("in: v", a.v().name());
        attn.put("out: attention rows", a.output().name());
        all.put(a.key(), attn);
        for (int i = 0; i < d.post().size(); i++) {
            VaeDecoderIo.PostStage stage = d.post().get(i);
            Map<String, String> m = new LinkedHashMap<>();
            for (VaeDecoderIo.Feed f : stage.feeds()) {
                String from = switch (f.source().kind()) {
                    case RESIDUAL -> "the residual";
                    case ATTENTION -> "the attention result";
                    case STAGE ->
                        d.post().get(f.source().stage()).key() + "'s "
                                + f.source().output();
                };
                m.put("in: " + from, f.input().name());
            }
            boolean last = i == d.post().size() - 1;
            for (TensorSignature out : stage.outputs()) {
                m.put(last ? "out: image [1, 3, H, W] in [-1, 1]" : "out: stage output " + out.name(), out.name());
            }
            all.put(stage.key(), m);
        }
    }

    private static Map<String, String> encoder(VaeEncoderIo e) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("in: image [1, 3, H, W] in [-1, 1]", e.image().name());
        m.put("out: latent [1, 128, H/16, W/16], normalised and patchified", e.z().name());
        return m;
    }
}
