package dev.flux2.onnx.graph;

import ai.onnx.proto.OnnxMl.AttributeProto;
import ai.onnx.proto.OnnxMl.GraphProto;
import ai.onnx.proto.OnnxMl.NodeProto;
import ai.onnx.proto.OnnxMl.TensorProto;
import ai.onnx.proto.OnnxMl.ValueInfoProto;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The element type of every value of a graph, propagated in node order (ONNX graphs are topologically sorted) from
 * the inputs, initializers, value infos and the few operators that set a type ({@code Cast}, {@code Shape},
 * comparisons, …); every other operator is taken to produce its first input's type, which holds for the operators
 * around attention (arithmetic, MatMul, Softmax, Reshape, Transpose, Slice, Concat, normalisations). A value whose
 * type is not known maps to {@link #UNDEFINED}; the MHA fusion then leaves its attention unfused.
 *
 * <p>The one element-type vocabulary of the graph passes: ONNX's {@code TensorProto.DataType} numbers, named here.
 * Immutable.
 */
public final class ElementTypes {
    /** Not known. */
    public static final int UNDEFINED = 0;
    /** fp32. */
    public static final int FLOAT = TensorProto.DataType.FLOAT_VALUE;
    /** fp16. */
    public static final int FLOAT16 = TensorProto.DataType.FLOAT16_VALUE;
    /** bf16. */
    public static final int BFLOAT16 = TensorProto.DataType.BFLOAT16_VALUE;
    /** fp64. */
    public static final int DOUBLE = TensorProto.DataType.DOUBLE_VALUE;
    /** int64. */
    public static final int INT64 = TensorProto.DataType.INT64_VALUE;
    /** int32. */
    public static final int INT32 = TensorProto.DataType.INT32_VALUE;
    /** uint8. */
    public static final int UINT8 = TensorProto.DataType.UINT8_VALUE;
    /** 4-bit unsigned, two per byte. */
    public static final int UINT4 = TensorProto.DataType.UINT4_VALUE;
    /** bool. */
    public static final int BOOL = TensorProto.DataType.BOOL_VALUE;

    private static final Set<String> BOOLEAN_OPS = Set.of(
            "Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual", "Not", "And", "Or", "Xor", "IsNaN", "IsInf");
    private static final Set<String> INT64_OPS = Set.of("Shape", "Size", "NonZero", "ArgMax", "ArgMin");

    private final Map<String, Integer> types;

    private ElementTypes(Map<String, Integer> types) {
        this.types = types;
    }

    /**
     * @param type an element type
     * @return whether it is a floating-point type (fp32, fp16, bf16, fp64)
     */
    public static boolean floating(int type) {
        return type == FLOAT || type == FLOAT16 || type == DOUBLE || type == BFLOAT16;
    }

    /**
     * @param graph a graph
     * @return the element types of its values
     */
    public static ElementTypes of(GraphProto graph) {
        Map<String, Integer> t = new HashMap<>();
        for (ValueInfoProto v : graph.getInputList()) {
            put(t, v);
        }
        for (TensorProto init : graph.getInitializerList()) {
            t.put(init.getName(), init.getDataType());
        }
        for (ValueInfoProto v : graph.getValueInfoList()) {
            put(t, v);
        }
        for (NodeProto n : graph.getNodeList()) {
            int type = produced(n, t);
            for (String out : n.getOutputList()) {
                if (!out.isEmpty() && type != 0) {
                    t.putIfAbsent(out, type);
                }
            }
        }
        return new ElementTypes(t);
    }

    /**
     * @param value a value's name
     * @return its element type, or {@link #UNDEFINED} when unknown
     */
    public int of(String value) {
        return types.getOrDefault(value, 0);
    }

    private static void put(Map<String, Integer> t, ValueInfoProto v) {
        if (v.getType().hasTensorType() && v.getType().getTensorType().getElemType() != 0) {
            t.put(v.getName(), v.getType().getTensorType().getElemType());
        }
    }

    private static int produced(NodeProto n, Map<String, Integer> t) {
        if (!n.getDomain().isEmpty() && !n.getDomain().equals("ai.onnx")) {
            // Contrib operators: MatMulNBits, the normalisations and attention keep their first input's type.
            return n.getInputCount() > 0 ? t.getOrDefault(n.getInput(0), 0) : 0;
        }
        switch (n.getOpType()) {
            case "Cast":
                return intAttr(n, "to");
            case "Constant":
                for (AttributeProto a : n.getAttributeList()) {
                    if (a.hasT()) {
                        return a.getT().getDataType();
                    }
                    if (a.getName().startsWith("value_float")) {
                        return FLOAT;
                    }
                    if (a.getName().startsWith("value_int")) {
                        return INT64;
                    }
                }
                return 0;
            case "ConstantOfShape":
                for (AttributeProto a : n.getAttributeList()) {
                    if (a.hasT()) {
                        return a.getT().getDataType();
                    }
                }
                return FLOAT;
            case "Where":
                return n.getInputCount() > 1 ? t.getOrDefault(n.getInput(1), 0) : 0;
            case "CastLike":
            case "DequantizeLinear":
                return n.getInputCount() > 1 ? t.getOrDefault(n.getInput(1), 0) : 0;
            default:
                if (BOOLEAN_OPS.contains(n.getOpType())) {
                    return BOOL;
                }
                if (INT64_OPS.contains(n.getOpType())) {
                    return INT64;
                }
                return n.getInputCount() > 0 ? t.getOrDefault(n.getInput(0), 0) : 0;
        }
    }

    private static int intAttr(NodeProto n, String name) {
        for (AttributeProto a : n.getAttributeList()) {
            if (a.getName().equals(name)) {
                return (int) a.getI();
            }
        }
        return 0;
    }
}
