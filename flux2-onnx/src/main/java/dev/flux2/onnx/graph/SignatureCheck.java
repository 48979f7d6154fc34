package dev.flux2.onnx.graph;

import dev.flux2.api.ModelLoadException;
import dev.flux2.onnx.config.ModelEntry;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Checks one graph's real signature against what the config declares and what the contract requires, with
 * messages that name the graph key, its file, the tensor, the expectation and what the graph has.
 * One instance per graph; not thread-safe (used once at load time).
 */
public final class SignatureCheck {
    private final ModelEntry entry;
    private final GraphSignature signature;

    /**
     * @param entry the config entry
     * @param signature the graph's real signature
     */
    public SignatureCheck(ModelEntry entry, GraphSignature signature) {
        this.entry = entry;
        this.signature = signature;
    }

    /** @return the graph's real signature */
    public GraphSignature signature() {
        return signature;
    }

    /** @return the config entry */
    public ModelEntry entry() {
        return entry;
    }

    /**
     * Requires the graph to have every input and output the config declares (when it declares them), and no input
     * the config does not declare: a renamed tensor would otherwise fail only at the first run, and an undeclared
     * input would never be fed. Extra outputs are harmless (only the declared ones are requested) and allowed.
     *
     * @param checkInputs whether to compare inputs (false for graphs whose inputs follow a detected convention)
     */
    public void requireDeclaredNames(boolean checkInputs) {
        if (checkInputs) {
            compare("input", entry.names().inputs(), signature.inputNames(), true);
        }
        compare("output", entry.names().outputs(), signature.outputNames(), false);
    }

    private void compare(String kind, List<String> declared, List<String> actual, boolean exact) {
        if (declared.isEmpty()) {
            return;
        }
        for (String name : declared) {
            if (!actual.contains(name)) {
                throw error(kind + " '" + name + "' is declared in models." + entry.key() + "." + kind
                        + "s but the graph has no such " + kind + "; the graph's " + kind + "s are " + actual);
            }
        }
        for (String name : actual) {
            if (exact && !declared.contains(name)) {
                throw error("the graph has " + kind + " '" + name + "' that models." + entry.key() + "." + kind
                        + "s does not declare (declared: " + declared + ")");
            }
        }
    }

    /** @return the input names to resolve roles from: the declared ones, else the graph's own */
    public List<String> inputNames() {
        return entry.names().inputs().isEmpty() ? signature.inputNames() : entry.names().inputs();
    }

    /** @return the output names to resolve roles from: the declared ones, else the graph's own */
    public List<String> outputNames() {
        return entry.names().outputs().isEmpty() ? signature.outputNames() : entry.names().outputs();
    }

    /**
     * Finds the input playing a role by its known names.
     *
     * @param role the role, for messages (for example {@code x})
     * @param aliases names the role goes by in known exports, preferred first
     * @return the name
     */
    public String inputByAlias(String role, List<String> aliases) {
        return byAlias("input", role, aliases, inputNames());
    }

    /**
     * @param role the role, for messages
     * @param aliases names the role goes by in known exports
     * @return the output name
     */
    public String outputByAlias(String role, List<String> aliases) {
        return byAlias("output", role, aliases, outputNames());
    }

    private String byAlias(String kind, String role, List<String> aliases, List<String> names) {
        for (String alias : aliases) {
            if (names.contains(alias)) {
                return alias;
            }
        }
        throw error("no " + kind + " for '" + role + "' (expected one named " + String.join(" or ", aliases)
                + "); the " + kind + "s are " + names);
    }

    /**
     * @param role the role, for messages
     * @param index position in the declared (else the graph's) order
     * @param count how many inputs the contract needs
     * @return the input name at that position
     */
    public String inputAt(String role, int index, int count) {
        return at("input", role, index, count, inputNames());
    }

    /**
     * @param role the role, for messages
     * @param index position in the declared (else the graph's) order
     * @param count how many outputs the contract needs
     * @return the output name at that position
     */
    public String outputAt(String role, int index, int count) {
        return at("output", role, index, count, outputNames());
    }

    private String at(String kind, String role, int index, int count, List<String> names) {
        if (names.size() < count) {
            throw error("expected " + count + " " + kind + "s (" + role + " is " + kind + " " + index + "), found "
                    + names.size() + ": " + names);
        }
        return names.get(index);
    }

    /**
     * @param name an input name
     * @param rule what it must be
     * @return the input's signature
     */
    public TensorSignature input(String name, TensorRule rule) {
        TensorSignature t = signature.input(name).orElseThrow(() -> error("input '" + name
                + "' is missing; the graph's inputs are " + signature.inputNames()));
        return conform("input", t, rule);
    }

    /**
     * @param name an output name
     * @param rule what it must be
     * @return the output's signature
     */
    public TensorSignature output(String name, TensorRule rule) {
        TensorSignature t = signature.output(name).orElseThrow(() -> error("output '" + name
                + "' is missing; the graph's outputs are " + signature.outputNames()));
        return conform("output", t, rule);
    }

    private TensorSignature conform(String kind, TensorSignature t, TensorRule rule) {
        if (!rule.types().contains(t.elementType()) || t.rank() != rule.rank() || !fixedDimsMatch(t, rule)) {
            throw error(kind + " '" + t.name() + "' (" + rule.role() + ") must be " + rule.describe() + ", found "
                    + t.elementType() + " " + t.shapeText());
        }
        return t;
    }

    private static boolean fixedDimsMatch(TensorSignature t, TensorRule rule) {
        for (Map.Entry<Integer, Long> e : rule.fixedDims().entrySet()) {
            Dim d = t.dim(e.getKey());
            if (d.isFixed() && d.value() != e.getValue()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Requires that every graph input is one of the names the stage feeds (an unfed input would fail at run time).
     *
     * @param fed the names the stage will feed
     */
    public void requireOnlyInputs(Set<String> fed) {
        List<String> unfed = new ArrayList<>();
        for (String name : signature.inputNames()) {
            if (!fed.contains(name)) {
                unfed.add(name);
            }
        }
        if (!unfed.isEmpty()) {
            throw error("has input(s) " + unfed + " that the " + entry.key() + " stage does not feed (it feeds "
                    + new LinkedHashSet<>(fed) + ")");
        }
    }

    /**
     * @param message what is wrong
     * @return an exception naming the graph key and file
     */
    public ModelLoadException error(String message) {
        return new ModelLoadException("graph " + entry.key() + " (" + entry.file() + "): " + message);
    }
}
