package dev.flux2.onnx.session;

import ai.onnx.proto.OnnxMl.TensorProto;
import dev.flux2.testkit.PlainGraphBuilder;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;

/** Tiny ONNX graphs (the testkit's {@link PlainGraphBuilder}), for session-level tests. */
final class TestGraphs {
    private static final int FLOAT = TensorProto.DataType.FLOAT_VALUE;

    private TestGraphs() {}

    /** @return y = x + x over x [1, n] with n symbolic */
    static Path doubler(Path file) {
        return PlainGraphBuilder.write(
                PlainGraphBuilder.named("doubler")
                        .input("x", FLOAT, 1, "n")
                        .output("y", FLOAT, 1, "n")
                        .node("Add", List.of("x", "x"), "y")
                        .model(8, 17),
                file);
    }

    /**
     * @param size matrix side
     * @param depth number of chained MatMuls (each reuses one weight, so the file stays small)
     * @return y = x·W·W·…·W over x [size, size], slow enough to be cancelled in the middle
     */
    static Path matMulChain(Path file, int size, int depth) {
        ByteBuffer w = ByteBuffer.allocate(size * size * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < size * size; i++) {
            w.putFloat(((i * 31) % 17 - 8) / (8f * size));
        }
        PlainGraphBuilder g = PlainGraphBuilder.named("chain")
                .initializer(PlainGraphBuilder.rawTensor("w", FLOAT, w.array(), size, size))
                .input("x", FLOAT, size, size)
                .output("y", FLOAT, size, size);
        String previous = "x";
        for (int i = 0; i < depth; i++) {
            String out = i == depth - 1 ? "y" : "h" + i;
            g.node("MatMul", List.of(previous, "w"), out);
            previous = out;
        }
        return PlainGraphBuilder.write(g.model(8, 17), file);
    }
}
