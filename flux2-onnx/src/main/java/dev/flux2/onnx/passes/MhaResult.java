package dev.flux2.onnx.passes;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the MHA fusion did, or would do.
 *
 * @param candidates Softmax nodes looked at
 * @param fused attention blocks replaced
 * @param notFused one reason per Softmax left as it is
 */
public record MhaResult(int candidates, int fused, List<String> notFused) {
    /** Copies the list. */
    public MhaResult {
        notFused = List.copyOf(notFused);
    }

    /** @return e.g. {@code 25 of 25 softmax nodes fused as attention} or with the reasons of the others */
    public String describe() {
        if (candidates == 0) {
            return "no attention (no Softmax)";
        }
        String s = fused + " of " + candidates + " softmax " + (candidates == 1 ? "node" : "nodes")
                + " fused as attention";
        return notFused.isEmpty() ? s : s + "; not fused: " + String.join("; ", distinct(notFused));
    }

    static List<String> distinct(List<String> reasons) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        reasons.forEach(r -> counts.merge(r, 1, Integer::sum));
        List<String> out = new ArrayList<>();
        counts.forEach((r, n) -> out.add(n == 1 ? r : n + "× " + r));
        return out;
    }
}
