package dev.flux2.testkit.timing;

import dev.flux2.testkit.ExternalDataWriter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Every linear layer of a timing transformer, written to the external-data shards in forward order. The layer
 * list follows the diffusers {@code Flux2Transformer2DModel} with the export's fused q/k/v projections
 * (89 MatMulNBits nodes for 5 + 20 blocks, matching the real config's {@code matmul_nbits_nodes}).
 */
final class TimingWeights {
    private final Map<String, Q4Linear> layers;

    private TimingWeights(Map<String, Q4Linear> layers) {
        this.layers = Collections.unmodifiableMap(layers);
    }

    /** @return (name, K, N) of every linear layer, in forward order */
    static List<LayerShape> shapes(TimingTransformerSpec spec) {
        int d = spec.hidden();
        int m = spec.mlpHidden();
        List<LayerShape> list = new ArrayList<>();
        list.add(new LayerShape("time_embed.linear_1", TimingTransformerSpec.TIMESTEP_CHANNELS, d));
        list.add(new LayerShape("time_embed.linear_2", d, d));
        list.add(new LayerShape("double_stream_modulation_img", d, 6 * d));
        list.add(new LayerShape("double_stream_modulation_txt", d, 6 * d));
        list.add(new LayerShape("single_stream_modulation", d, 3 * d));
        list.add(new LayerShape("x_embedder", TimingTransformerSpec.LATENT_CHANNELS, d));
        list.add(new LayerShape("context_embedder", spec.contextDim(), d));
        for (int i = 0; i < spec.doubleBlocks(); i++) {
            for (String stream : List.of("img", "txt")) {
                String p = doublePrefix(i) + stream;
                list.add(new LayerShape(p + ".qkv", d, 3 * d));
                list.add(new LayerShape(p + ".out", d, d));
                list.add(new LayerShape(p + ".ff_in", d, 2 * m));
                list.add(new LayerShape(p + ".ff_out", m, d));
            }
        }
        for (int i = 0; i < spec.singleBlocks(); i++) {
            list.add(new LayerShape(singlePrefix(i) + "linear1", d, 3 * d + 2 * m));
            list.add(new LayerShape(singlePrefix(i) + "linear2", d + m, d));
        }
        list.add(new LayerShape("norm_out.linear", d, 2 * d));
        list.add(new LayerShape("proj_out", d, TimingTransformerSpec.LATENT_CHANNELS));
        return List.copyOf(list);
    }

    static String doublePrefix(int block) {
        return "transformer_blocks." + block + ".";
    }

    static String singlePrefix(int block) {
        return "single_transformer_blocks." + block + ".";
    }

    static TimingWeights write(TimingTransformerSpec spec, ExternalDataWriter writer) {
        SplittableRandom rnd = new SplittableRandom(spec.seed());
        Map<String, Q4Linear> layers = new LinkedHashMap<>();
        for (LayerShape s : shapes(spec)) {
            layers.put(
                    s.name(),
                    Q4Linear.write(writer, "/timing/" + s.name(), s.k(), s.n(), spec.blockSize(), rnd.split()));
        }
        return new TimingWeights(layers);
    }

    Q4Linear get(String name) {
        Q4Linear l = layers.get(name);
        if (l == null) {
            throw new IllegalStateException("no timing layer '" + name + "'");
        }
        return l;
    }

    int count() {
        return layers.size();
    }

    long bytes() {
        long sum = 0;
        for (Q4Linear l : layers.values()) {
            sum += l.bytes();
        }
        return sum;
    }

    /**
     * One linear layer's shape.
     *
     * @param name layer name
     * @param k input features
     * @param n output features
     */
    record LayerShape(String name, int k, int n) {}
}
