package dev.flux2.onnx.passes.lora;

import java.util.ArrayList;
import java.util.List;

/**
 * The two graph inputs of one linear layer's low-rank branch and the diffusers layers they serve. The names are
 * self-describing, so that the factors are fed from the derived graph's inputs alone:
 * {@code lora_a:<target>@<from>:<to>[,<target>@<from>:<to>…]} (and {@code lora_b:…}), the parts as in
 * {@code AdaptedLinear}.
 *
 * @param target the first part's target, for node names and messages
 * @param downInput the input {@code a} [in, r]
 * @param upInput the input {@code b} [r, out]
 * @param parts the diffusers layers the branch serves, by output column range
 */
public record LoraSlot(String target, String downInput, String upInput, List<AdaptedLinear.Part> parts) {
    static final String DOWN = "lora_a:";
    static final String UP = "lora_b:";

    /** Copies the list. */
    public LoraSlot {
        parts = List.copyOf(parts);
    }

    /**
     * @param layer an adapted linear
     * @return its slot
     */
    public static LoraSlot of(AdaptedLinear layer) {
        List<String> p = new ArrayList<>();
        for (AdaptedLinear.Part part : layer.parts()) {
            p.add(part.target() + "@" + part.from() + ":" + part.to());
        }
        String spec = String.join(",", p);
        return new LoraSlot(layer.parts().get(0).target(), DOWN + spec, UP + spec, layer.parts());
    }

    /**
     * @param downInput a graph input's name
     * @return the slot it is the {@code a} input of, or null when it is no LoRA input
     */
    public static LoraSlot parse(String downInput) {
        if (!downInput.startsWith(DOWN)) {
            return null;
        }
        String spec = downInput.substring(DOWN.length());
        List<AdaptedLinear.Part> parts = new ArrayList<>();
        for (String s : spec.split(",")) {
            int at = s.lastIndexOf('@');
            int colon = s.lastIndexOf(':');
            parts.add(new AdaptedLinear.Part(
                    s.substring(0, at),
                    Integer.parseInt(s.substring(at + 1, colon)),
                    Integer.parseInt(s.substring(colon + 1))));
        }
        return new LoraSlot(parts.get(0).target(), downInput, UP + spec, parts);
    }

    /** @return the name of the branch's symbolic rank dimension */
    public String rankDimension() {
        return "lora_rank:" + target;
    }
}
