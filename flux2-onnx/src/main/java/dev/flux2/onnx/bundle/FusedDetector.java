package dev.flux2.onnx.bundle;

import dev.flux2.api.ModelLoadException;
import dev.flux2.spi.LatentGrid;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Detects a fused transformer graph's schedule convention from its real input names (docs/bundle-format.md §9). The
 * config's {@code inputs} are not trusted here, because the seed config lists {@code timesteps} while the browser
 * engine feeds {@code timestep_0..3} and {@code dt_0..3}.
 *
 * <ul>
 *   <li>ENGINE: inputs {@code timestep_0..k−1} and {@code dt_0..k−1}, each holding one value of a float type.
 *       The step count k comes from the graph; when the entry also gives {@code fused_steps}, the two must agree.
 *       </li>
 *   <li>LISTED: one {@code timesteps} input whose shape is fully fixed and holds k values (σ_0..σ_{k−1}) or k + 1
 *       (with the final 0), with k = {@code fused_steps} (4 when absent, as the key name says). A symbolic or
 *       other length is ambiguous.</li>
 * </ul>
 * Anything else makes the graph unusable with the reason (the backend logs it and runs per step).
 */
final class FusedDetector {
    /** The step count of {@code transformer_fused_4step} when the entry gives no {@code fused_steps}. */
    static final int DEFAULT_STEPS = 4;

    private static final List<String> TIMESTEPS = KnownNames.TIMESTEP;
    private static final Pattern TIMESTEP_I = Pattern.compile("timestep_(\\d+)");
    private static final Pattern DT_I = Pattern.compile("dt_(\\d+)");

    private FusedDetector() {}

    /**
     * @param c the graph's check, resolving inputs from the graph's own names
     *     ({@link SignatureCheck#ignoringDeclaredInputs})
     * @param textSeq text_seq_len
     * @param contextDim context_dim
     * @param fusedSteps the entry's {@code fused_steps}, if given
     * @return the detected convention, or why the graph cannot be used
     */
    static FusedIo detect(SignatureCheck c, int textSeq, int contextDim, OptionalInt fusedSteps) {
        GraphSignature sig = c.signature();
        String where = c.entry().file() + " (inputs " + sig.inputNames() + ", outputs " + sig.outputNames() + ")";
        int configured = fusedSteps.orElse(DEFAULT_STEPS);
        TransformerInputs common;
        TensorSignature latent;
        try {
            common = TransformerContract.inputs(c, textSeq, contextDim);
            String out = c.findOutput(KnownNames.FINAL_LATENT).orElseGet(() -> c.outputAt("latent", 0, 1));
            latent = c.output(out, TensorRule.of("final latent", TypeSets.FLOATS, 1, -1, LatentGrid.CHANNELS));
        } catch (ModelLoadException e) {
            return FusedIo.unusable(configured, e.getMessage());
        }
        Set<String> rest = new LinkedHashSet<>(sig.inputNames());
        rest.removeAll(List.of(
                common.x().name(),
                common.xIds().name(),
                common.ctx().name(),
                common.ctxIds().name()));
        Map<Integer, TensorSignature> timesteps = indexed(sig, rest, TIMESTEP_I);
        Map<Integer, TensorSignature> dts = indexed(sig, rest, DT_I);
        if (!timesteps.isEmpty() || !dts.isEmpty()) {
            return engine(new Found(where, common, latent), rest, timesteps, dts, fusedSteps);
        }
        for (String name : TIMESTEPS) {
            if (rest.equals(Set.of(name))) {
                return listed(new Found(where, common, latent), sig.input(name).orElseThrow(), configured);
            }
        }
        return FusedIo.unusable(
                configured,
                "fused graph " + where + " matches neither the engine convention "
                        + "(timestep_i and dt_i) nor the listed one (a single timesteps input of fixed length "
                        + configured + " or " + (configured + 1) + "); unexpected inputs " + rest);
    }

    /** What every convention shares. */
    private record Found(String where, TransformerInputs common, TensorSignature latent) {}

    private static Map<Integer, TensorSignature> indexed(GraphSignature sig, Set<String> names, Pattern pattern) {
        Map<Integer, TensorSignature> found = new TreeMap<>();
        for (String name : names) {
            Matcher m = pattern.matcher(name);
            if (m.matches() && m.group(1).length() < 6) {
                found.put(Integer.parseInt(m.group(1)), sig.input(name).orElseThrow());
            }
        }
        return found;
    }

    private static FusedIo engine(
            Found f,
            Set<String> rest,
            Map<Integer, TensorSignature> timesteps,
            Map<Integer, TensorSignature> dts,
            OptionalInt fusedSteps) {
        int k = timesteps.size();
        Set<Integer> expected = IntStream.range(0, k).boxed().collect(Collectors.toSet());
        boolean contiguous = timesteps.keySet().equals(expected) && dts.keySet().equals(expected);
        if (!contiguous || rest.size() != 2 * k || k == 0) {
            List<String> names = new ArrayList<>();
            timesteps.values().forEach(t -> names.add(t.name()));
            dts.values().forEach(t -> names.add(t.name()));
            Set<String> other = new LinkedHashSet<>(rest);
            names.forEach(other::remove);
            return FusedIo.unusable(
                    fusedSteps.orElse(k),
                    "fused graph " + f.where() + ": the engine convention "
                            + "needs timestep_0..k-1 and dt_0..k-1 for the same k, found " + names
                            + (other.isEmpty() ? "" : " and unexpected inputs " + other));
        }
        if (fusedSteps.isPresent() && fusedSteps.getAsInt() != k) {
            return FusedIo.unusable(
                    fusedSteps.getAsInt(),
                    "fused graph " + f.where() + ": fused_steps is "
                            + fusedSteps.getAsInt() + " but the graph takes " + k + " steps (timestep_0.." + (k - 1)
                            + "); which one holds is ambiguous");
        }
        List<TensorSignature> ts = new ArrayList<>(timesteps.values());
        List<TensorSignature> ds = new ArrayList<>(dts.values());
        TensorRule one = TensorRule.singleValue("one schedule value", TypeSets.FLOATS);
        for (TensorSignature t : concat(ts, ds)) {
            if (!one.accepts(t)) {
                return FusedIo.unusable(k, "fused graph " + f.where() + ": input " + t + " must be " + one.describe());
            }
        }
        return new FusedIo(
                FusedConvention.ENGINE,
                "engine convention (timestep_i, dt_i; " + k + " steps)",
                k,
                Optional.of(f.common()),
                ts,
                ds,
                Optional.of(f.latent()));
    }

    private static List<TensorSignature> concat(List<TensorSignature> a, List<TensorSignature> b) {
        List<TensorSignature> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    private static FusedIo listed(Found f, TensorSignature t, int k) {
        long values = 1;
        int longDims = 0;
        boolean fixed = true;
        for (Dim d : t.dims()) {
            fixed &= d.isFixed();
            values *= Math.max(d.value(), 0);
            longDims += d.isFixed() && d.value() != 1 ? 1 : 0;
        }
        if (!TypeSets.FLOATS.contains(t.elementType())
                || t.rank() == 0
                || !fixed
                || longDims > 1
                || (values != k && values != k + 1)) {
            return FusedIo.unusable(
                    k,
                    "fused graph " + f.where() + ": input " + t + " is ambiguous; the listed "
                            + "convention needs a float tensor of fixed shape [" + k + "] (sigma_0.." + (k - 1)
                            + ") or ["
                            + (k + 1) + "] (with the final 0) for the " + k + " steps of fused_steps");
        }
        return new FusedIo(
                FusedConvention.LISTED,
                "listed convention (timesteps " + t.shapeText() + ")",
                k,
                Optional.of(f.common()),
                List.of(t),
                List.of(),
                Optional.of(f.latent()));
    }
}
