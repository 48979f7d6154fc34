package dev.flux2.onnx.graph;

import dev.flux2.api.ModelLoadException;
import dev.flux2.onnx.config.ModelEntry;
import dev.flux2.onnx.config.TensorNames;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Detects a fused transformer graph's schedule convention from its real input names (onnx-bundle §7): the config's
 * {@code inputs} are not trusted here, because the seed config lists {@code timesteps} while the browser engine
 * feeds {@code timestep_0..3} and {@code dt_0..3}. Anything that matches neither convention is reported as
 * unusable with the reason (the caller logs it and runs per step).
 */
final class FusedDetector {
    private static final List<String> TIMESTEPS = List.of("timesteps", "timestep");

    private FusedDetector() {
    }

    static FusedIo detect(SignatureCheck c, int textSeq, int contextDim, int steps) {
        GraphSignature sig = c.signature();
        String where = c.entry().file() + " (inputs " + sig.inputNames() + ", outputs " + sig.outputNames() + ")";
        TransformerInputs common;
        TensorSignature latent;
        try {
            common = GraphContracts.transformerInputs(graphNames(c), textSeq, contextDim);
            c.requireDeclaredNames(false);
            String out = c.outputByAlias("latent", List.of("latent", c.outputAt("latent", 0, 1)));
            latent = c.output(out, TensorRule.of("final latent", GraphContracts.activationType(c.entry()), 1, -1,
                    128));
        } catch (ModelLoadException e) {
            return FusedIo.unusable(steps, e.getMessage());
        }
        Set<String> rest = new LinkedHashSet<>(sig.inputNames());
        rest.removeAll(List.of(common.x().name(), common.xIds().name(), common.ctx().name(), common.ctxIds().name()));

        Optional<FusedIo> engine = engine(sig, rest, steps, common, latent);
        if (engine.isPresent()) {
            return engine.get();
        }
        for (String name : TIMESTEPS) {
            if (rest.equals(Set.of(name))) {
                return listed(sig.input(name).orElseThrow(), steps, common, latent, where);
            }
        }
        return FusedIo.unusable(steps, "fused graph " + where + " matches neither the engine convention (timestep_0.."
                + (steps - 1) + " and dt_0.." + (steps - 1) + ") nor the listed one (a single timesteps input of "
                + "fixed length " + steps + " or " + (steps + 1) + "); unexpected inputs " + rest);
    }

    /** The fused graph's shared inputs are resolved from the graph's own names, not the config's list. */
    private static SignatureCheck graphNames(SignatureCheck c) {
        ModelEntry entry = c.entry();
        TensorNames names = new TensorNames(List.of(), entry.names().outputs(), entry.names().residualInput(),
                entry.names().attentionInput());
        return new SignatureCheck(new ModelEntry(entry.key(), entry.file(), entry.manifest(), names, entry.shards(),
                entry.settings()), c.signature());
    }

    private static Optional<FusedIo> engine(GraphSignature sig, Set<String> rest, int steps, TransformerInputs common,
            TensorSignature latent) {
        Set<String> expected = new LinkedHashSet<>();
        for (int i = 0; i < steps; i++) {
            expected.add("timestep_" + i);
            expected.add("dt_" + i);
        }
        if (!rest.equals(expected)) {
            return Optional.empty();
        }
        List<TensorSignature> timesteps = new ArrayList<>();
        List<TensorSignature> dts = new ArrayList<>();
        for (int i = 0; i < steps; i++) {
            TensorSignature t = sig.input("timestep_" + i).orElseThrow();
            TensorSignature d = sig.input("dt_" + i).orElseThrow();
            String bad = scalarProblem(t) != null ? scalarProblem(t) : scalarProblem(d);
            if (bad != null) {
                return Optional.of(FusedIo.unusable(steps, "fused graph input " + bad));
            }
            timesteps.add(t);
            dts.add(d);
        }
        return Optional.of(new FusedIo(FusedConvention.ENGINE, "engine convention (timestep_i, dt_i)", steps,
                Optional.of(common), timesteps, dts, Optional.of(latent)));
    }

    /** @return why the tensor cannot hold one float value, or null when it can */
    private static String scalarProblem(TensorSignature t) {
        if (!t.elementType().isHostFloat()) {
            return t + " must be FLOAT16 or FLOAT";
        }
        for (Dim d : t.dims()) {
            if (d.isFixed() && d.value() != 1) {
                return t + " must hold a single value";
            }
        }
        return t.rank() <= 1 ? null : t + " must have rank 0 or 1";
    }

    private static FusedIo listed(TensorSignature t, int steps, TransformerInputs common, TensorSignature latent,
            String where) {
        if (!t.elementType().isHostFloat() || t.rank() != 1 || !t.dim(0).isFixed()
                || (t.dim(0).value() != steps && t.dim(0).value() != steps + 1)) {
            return FusedIo.unusable(steps, "fused graph " + where + ": input " + t + " is ambiguous; the listed "
                    + "convention needs a FLOAT16 or FLOAT tensor of fixed shape [" + steps + "] (sigma_0.."
                    + (steps - 1) + ") or [" + (steps + 1) + "] (with the final 0)");
        }
        return new FusedIo(FusedConvention.LISTED, "listed convention (timesteps " + t.shapeText() + ")", steps,
                Optional.of(common), List.of(t), List.of(), Optional.of(latent));
    }
}
