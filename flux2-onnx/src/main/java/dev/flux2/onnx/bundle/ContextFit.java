package dev.flux2.onnx.bundle;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Checks that a text encoder and a denoiser fit each other wherever both graphs fix a size: the context rows the
 * encoder produces are as wide as the rows the denoiser takes, and as many. This matters most for a model composed of
 * parts of different exports; each graph's own contract is checked later. Stateless.
 */
final class ContextFit {
    private ContextFit() {}

    /**
     * @param textEncoder the text encoder's signature
     * @param denoiser the denoiser's signature
     * @return what does not fit, naming both files, the tensors and the sizes; empty when nothing contradicts
     */
    static List<String> problems(GraphSignature textEncoder, GraphSignature denoiser) {
        List<String> problems = new ArrayList<>();
        Optional<TensorSignature> produced = find(textEncoder.outputs(), KnownNames.TEXT_CONTEXT_OUT)
                .or(() -> textEncoder.outputs().stream().findFirst());
        Optional<TensorSignature> ids = find(textEncoder.inputs(), KnownNames.TOKEN_IDS);
        Optional<TensorSignature> taken = find(denoiser.inputs(), KnownNames.TEXT_CONTEXT_IN);
        if (produced.isEmpty() || taken.isEmpty()) {
            return problems;
        }
        compare(textEncoder, produced.get(), 2, denoiser, taken.get(), 2, "context rows of width", problems);
        compare(textEncoder, produced.get(), 1, denoiser, taken.get(), 1, "a context of rows", problems);
        if (ids.isPresent() && problems.isEmpty()) {
            compare(textEncoder, ids.get(), 1, denoiser, taken.get(), 1, "token sequences of length", problems);
        }
        return problems;
    }

    private static void compare(
            GraphSignature te,
            TensorSignature a,
            int ai,
            GraphSignature dn,
            TensorSignature b,
            int bi,
            String what,
            List<String> problems) {
        Dim da = a.dimOrFree(ai);
        Dim db = b.dimOrFree(bi);
        if (da.isFixed() && db.isFixed() && da.value() != db.value()) {
            problems.add("the text encoder " + te.file() + " works with " + what + " " + da.value() + " ("
                    + kind(te, a) + " '" + a.name() + "' " + a.elementType() + " " + a.shapeText()
                    + ") but the denoiser " + dn.file() + " takes " + what + " " + db.value() + " (input '" + b.name()
                    + "' " + b.elementType() + " " + b.shapeText() + "): the two parts do not fit together");
        }
    }

    private static String kind(GraphSignature g, TensorSignature t) {
        return g.inputs().contains(t) ? "input" : "output";
    }

    private static Optional<TensorSignature> find(List<TensorSignature> tensors, List<String> names) {
        for (String name : names) {
            for (TensorSignature t : tensors) {
                if (t.name().equals(name)) {
                    return Optional.of(t);
                }
            }
        }
        return Optional.empty();
    }
}
