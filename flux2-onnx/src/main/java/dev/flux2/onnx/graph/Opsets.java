package dev.flux2.onnx.graph;

import ai.onnx.proto.OnnxMl.ModelProto;
import ai.onnx.proto.OnnxMl.OperatorSetIdProto;
import java.util.OptionalLong;

/** The operator sets a model imports. Stateless. */
public final class Opsets {
    /** The default (ONNX) domain, as {@link #version} takes it. */
    public static final String DEFAULT = "";

    private Opsets() {}

    /**
     * @param model a model
     * @param domain a domain, {@link #DEFAULT} for ONNX's ({@code ai.onnx} is read as the same)
     * @return the version imported, empty when the model imports none of that domain
     */
    public static OptionalLong version(ModelProto model, String domain) {
        for (OperatorSetIdProto o : model.getOpsetImportList()) {
            String d = o.getDomain().equals("ai.onnx") ? DEFAULT : o.getDomain();
            if (d.equals(domain)) {
                return OptionalLong.of(o.getVersion());
            }
        }
        return OptionalLong.empty();
    }
}
