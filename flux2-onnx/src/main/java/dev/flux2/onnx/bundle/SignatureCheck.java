package dev.flux2.onnx.bundle;

import dev.flux2.api.ModelLoadException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks one graph's real signature against what the config declares and what the contract requires, with
 * messages that name the graph key, its file, the tensor, the expectation and what the graph has.
 *
 * <p>The graph is authoritative (docs/bundle-format.md §4): the config's {@code inputs}/{@code outputs} lists are used
 * to order and name roles only while every name they list exists in the graph. A list that names a tensor the graph
 * does not have is stale (the seed config lists {@code timesteps} for a fused graph that takes {@code timestep_i}); it
 * is then ignored with a warning and roles are resolved from the graph's own names. Extra graph outputs are harmless
 * (only the needed ones are requested); an input no stage feeds is an error ({@link #requireOnlyInputs}). One instance
 * per graph; not thread-safe (used once at load time).
 */
final class SignatureCheck {
    private static final Logger LOG = LoggerFactory.getLogger(SignatureCheck.class);

    private final ModelEntry entry;
    private final GraphSignature signature;
    private final boolean declaredInputs;
    private final boolean declaredOutputs;

    /**
     * @param entry the config entry
     * @param signature the graph's real signature
     */
    SignatureCheck(ModelEntry entry, GraphSignature signature) {
        this(entry, signature, true);
    }

    private SignatureCheck(ModelEntry entry, GraphSignature signature, boolean considerDeclaredInputs) {
        this.entry = entry;
        this.signature = signature;
        this.declaredInputs =
                considerDeclaredInputs && usable("input", entry.names().inputs(), signature.inputNames());
        this.declaredOutputs = usable("output", entry.names().outputs(), signature.outputNames());
    }

    /**
     * A check that resolves inputs from the graph's own names only, for graphs whose inputs follow a convention
     * detected from the graph (the fused transformer, whose config may list {@code timesteps} for a graph taking
     * {@code timestep_i}): the config's input list is then expected to differ and is not warned about.
     *
     * @param entry the config entry
     * @param signature the graph's real signature
     * @return the check
     */
    static SignatureCheck ignoringDeclaredInputs(ModelEntry entry, GraphSignature signature) {
        return new SignatureCheck(entry, signature, false);
    }

    private boolean usable(String kind, List<String> declared, List<String> actual) {
        if (declared.isEmpty()) {
            return false;
        }
        List<String> missing = new ArrayList<>();
        for (String name : declared) {
            if (!actual.contains(name)) {
                missing.add(name);
            }
        }
        if (missing.isEmpty()) {
            return true;
        }
        LOG.warn(
                "graph {} ({}): models.{}.{}s lists {} that the graph does not have; using the graph's own {}s {}",
                entry.key(),
                entry.file(),
                entry.key(),
                kind,
                missing,
                kind,
                actual);
        return false;
    }

    /** @return the graph's real signature */
    public GraphSignature signature() {
        return signature;
    }

    /** @return the config entry */
    public ModelEntry entry() {
        return entry;
    }

    /** @return the input names to resolve roles from: the declared ones when usable, else the graph's own */
    List<String> inputNames() {
        return declaredInputs ? entry.names().inputs() : signature.inputNames();
    }

    /** @return the output names to resolve roles from: the declared ones when usable, else the graph's own */
    List<String> outputNames() {
        return declaredOutputs ? entry.names().outputs() : signature.outputNames();
    }

    /**
     * @param aliases names a role goes by in known exports, preferred first
     * @return the first alias that is an input, if any
     */
    Optional<String> findInput(List<String> aliases) {
        return aliases.stream().filter(inputNames()::contains).findFirst();
    }

    /**
     * @param aliases names a role goes by in known exports, preferred first
     * @return the first alias that is an output, if any
     */
    Optional<String> findOutput(List<String> aliases) {
        return aliases.stream().filter(outputNames()::contains).findFirst();
    }

    /**
     * Finds the input playing a role by its known names.
     *
     * @param role the role, for messages (for example {@code x})
     * @param aliases names the role goes by in known exports, preferred first
     * @return the name
     */
    String inputByAlias(String role, List<String> aliases) {
        return byAlias("input", role, aliases, inputNames());
    }

    private String byAlias(String kind, String role, List<String> aliases, List<String> names) {
        for (String alias : aliases) {
            if (names.contains(alias)) {
                return alias;
            }
        }
        throw error("no " + kind + " for '" + role + "' (expected one named " + String.join(" or ", aliases) + "); the "
                + kind + "s are " + names);
    }

    /**
     * @param role the role, for messages
     * @param index position in the declared (else the graph's) order
     * @param count how many inputs the contract needs
     * @return the input name at that position
     */
    String inputAt(String role, int index, int count) {
        return at("input", role, index, count, inputNames());
    }

    /**
     * @param role the role, for messages
     * @param index position in the declared (else the graph's) order
     * @param count how many outputs the contract needs
     * @return the output name at that position
     */
    String outputAt(String role, int index, int count) {
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
        TensorSignature t = signature
                .input(name)
                .orElseThrow(() ->
                        error("input '" + name + "' is missing; the graph's inputs are " + signature.inputNames()));
        return conform("input", t, rule);
    }

    /**
     * @param name an output name
     * @param rule what it must be
     * @return the output's signature
     */
    public TensorSignature output(String name, TensorRule rule) {
        TensorSignature t = signature
                .output(name)
                .orElseThrow(() ->
                        error("output '" + name + "' is missing; the graph's outputs are " + signature.outputNames()));
        return conform("output", t, rule);
    }

    private TensorSignature conform(String kind, TensorSignature t, TensorRule rule) {
        if (!rule.accepts(t)) {
            throw error(kind + " '" + t.name() + "' (" + rule.role() + ") must be " + rule.describe() + ", found "
                    + t.elementType() + " " + t.shapeText());
        }
        return t;
    }

    /**
     * Requires that every graph input is one of the names the stage feeds (an unfed input would fail at run time).
     *
     * @param fed the names the stage will feed
     */
    void requireOnlyInputs(Set<String> fed) {
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
