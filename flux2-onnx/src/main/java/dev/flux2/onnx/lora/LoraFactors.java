package dev.flux2.onnx.lora;

import dev.flux2.api.InvalidRequestException;
import dev.flux2.onnx.passes.lora.AdaptedLinear;
import dev.flux2.onnx.passes.lora.LoraSlot;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The values fed to a derived graph's LoRA inputs ({@code LoraSlot}) for a stack of adapters: per branch
 * {@code a} [in, R] = the adapters' {@code scale·s_file·downᵀ} side by side and {@code b} [R, out] = their
 * {@code upᵀ} stacked, R the sum of their ranks, so that {@code (x·a)·b = Σ scale·s·(x·downᵀ)·upᵀ} as diffusers'
 * {@code set_adapters} adds them. Fused q/k/v branches get each part's factors in its own columns of {@code b}.
 * Adapters of scale 0 are dropped; a branch no adapter touches gets rank-1 zeros. Stateless.
 */
public final class LoraFactors {
    private LoraFactors() {}

    /**
     * An adapter and the user's scale for it.
     *
     * @param file the read LoRA file
     * @param scale the user's scale (diffusers' adapter weight)
     */
    public record Adapter(LoraAdapterFile file, double scale) {}

    /**
     * One input's values.
     *
     * @param name the graph input
     * @param shape its shape
     * @param values row-major values (fp32; the caller converts to the input's element type)
     */
    public record Feed(String name, long[] shape, float[] values) {}

    /**
     * @param inputs the derived graph's inputs by name, with their shapes (a dynamic dimension any value); only
     *     the {@code lora_a:} ones are read
     * @param adapters the adapters, in order
     * @return the feeds of every LoRA input of the graph
     * @throws InvalidRequestException when an adapter's layer is not in the graph or its shape does not fit
     */
    public static List<Feed> feeds(Map<String, long[]> inputs, List<Adapter> adapters) {
        Map<String, LoraSlot> byTarget = new LinkedHashMap<>();
        List<LoraSlot> slots = new ArrayList<>();
        List<Integer> ins = new ArrayList<>();
        for (Map.Entry<String, long[]> e : inputs.entrySet()) {
            LoraSlot s = LoraSlot.parse(e.getKey());
            if (s != null) {
                slots.add(s);
                ins.add((int) e.getValue()[0]);
                s.parts().forEach(p -> byTarget.put(p.target(), s));
            }
        }
        if (slots.isEmpty()) {
            throw new IllegalArgumentException("the graph has no LoRA inputs (not derived by lora-branches)");
        }
        List<Adapter> used = adapters.stream().filter(a -> a.scale() != 0.0).toList();
        for (Adapter a : used) {
            for (LoraLayer l : a.file().layers()) {
                LoraSlot s = byTarget.get(l.target());
                if (s == null) {
                    throw new InvalidRequestException("LoRA file " + a.file().file() + " adapts layer " + l.target()
                            + ", which this transformer graph does not have");
                }
                AdaptedLinear.Part p = part(s, l.target());
                int in = ins.get(slots.indexOf(s));
                if (l.inFeatures() != in || l.outFeatures() != p.to() - p.from()) {
                    throw new InvalidRequestException("LoRA file " + a.file().file() + ": layer " + l.target()
                            + " expected " + in + " → " + (p.to() - p.from()) + " features (the graph's), found "
                            + l.inFeatures() + " → " + l.outFeatures());
                }
            }
        }
        List<Feed> feeds = new ArrayList<>();
        for (int k = 0; k < slots.size(); k++) {
            LoraSlot s = slots.get(k);
            int in = ins.get(k);
            int out = s.parts().get(s.parts().size() - 1).to();
            for (AdaptedLinear.Part p : s.parts()) {
                out = Math.max(out, p.to());
            }
            List<LoraLayer> layers = new ArrayList<>();
            List<Double> scales = new ArrayList<>();
            for (Adapter a : used) {
                for (LoraLayer l : a.file().layers()) {
                    if (s.parts().stream().anyMatch(p -> p.target().equals(l.target()))) {
                        layers.add(l);
                        scales.add(a.scale() * l.scale());
                    }
                }
            }
            int rank = Math.max(1, layers.stream().mapToInt(LoraLayer::rank).sum());
            float[] down = new float[in * rank];
            float[] up = new float[rank * out];
            int c0 = 0;
            for (int j = 0; j < layers.size(); j++) {
                LoraLayer l = layers.get(j);
                double scale = scales.get(j);
                AdaptedLinear.Part p = part(s, l.target());
                for (int c = 0; c < l.rank(); c++) {
                    for (int i = 0; i < in; i++) {
                        down[i * rank + c0 + c] = (float) (scale * l.down()[c * in + i]);
                    }
                    for (int o = 0; o < l.outFeatures(); o++) {
                        up[(c0 + c) * out + p.from() + o] = l.up()[o * l.rank() + c];
                    }
                }
                c0 += l.rank();
            }
            feeds.add(new Feed(s.downInput(), new long[] {in, rank}, down));
            feeds.add(new Feed(s.upInput(), new long[] {rank, out}, up));
        }
        return feeds;
    }

    private static AdaptedLinear.Part part(LoraSlot s, String target) {
        return s.parts().stream()
                .filter(p -> p.target().equals(target))
                .findFirst()
                .orElseThrow();
    }
}
