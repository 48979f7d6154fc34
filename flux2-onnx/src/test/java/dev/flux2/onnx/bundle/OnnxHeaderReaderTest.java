package dev.flux2.onnx.bundle;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnx.proto.OnnxMl;
import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.TensorInfo;
import com.google.protobuf.ByteString;
import dev.flux2.testkit.PlainGraphBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hand-written header reader against graphs encoded by the official ONNX protobuf classes, and against what
 * ONNX Runtime itself reports for the same file.
 */
class OnnxHeaderReaderTest {
    @TempDir
    Path dir;

    private static OnnxMl.ValueInfoProto value(String name, OnnxMl.TensorProto.DataType type, Object... dims) {
        return PlainGraphBuilder.valueInfoProto(name, type.getNumber(), dims);
    }

    /** x (fp16 [1, image_seq, 4]) + w (an initializer that older exporters also list as an input) → y. */
    private Path writeModel(int weightBytes) throws IOException {
        OnnxMl.TensorProto weight = OnnxMl.TensorProto.newBuilder()
                .setName("w")
                .setDataType(OnnxMl.TensorProto.DataType.FLOAT16.getNumber())
                .addDims(weightBytes / 2)
                .setRawData(ByteString.copyFrom(new byte[weightBytes]))
                .build();
        OnnxMl.GraphProto graph = OnnxMl.GraphProto.newBuilder()
                .setName("g")
                .addNode(OnnxMl.NodeProto.newBuilder()
                        .setOpType("Identity")
                        .addInput("x")
                        .addOutput("y"))
                .addInitializer(weight)
                .addInput(value("x", OnnxMl.TensorProto.DataType.FLOAT16, 1, "image_seq", 4))
                .addInput(value("w", OnnxMl.TensorProto.DataType.FLOAT16, weightBytes / 2))
                .addInput(value("ids", OnnxMl.TensorProto.DataType.INT64, "batch", 512))
                .addInput(OnnxMl.ValueInfoProto.newBuilder()
                        .setName("free")
                        .setType(OnnxMl.TypeProto.newBuilder()
                                .setTensorType(OnnxMl.TypeProto.Tensor.newBuilder()
                                        .setElemType(OnnxMl.TensorProto.DataType.FLOAT.getNumber()))))
                .addInput(value("scalar", OnnxMl.TensorProto.DataType.FLOAT))
                .addOutput(value("y", OnnxMl.TensorProto.DataType.FLOAT16, 1, "image_seq", 4))
                .build();
        OnnxMl.ModelProto model = OnnxMl.ModelProto.newBuilder()
                .setIrVersion(8)
                .setProducerName("test")
                .addOpsetImport(OnnxMl.OperatorSetIdProto.newBuilder().setVersion(17))
                .setDocString("x".repeat(70_000)) // bigger than the reader's buffer, before the graph
                .setGraph(graph)
                .build();
        Path file = dir.resolve("m.onnx");
        Files.write(file, model.toByteArray());
        return file;
    }

    @Test
    void readsInputsOutputsTypesAndShapesButNotInitializers() throws IOException {
        GraphSignature s = OnnxHeaderReader.read(writeModel(300_000));
        assertEquals(List.of("x", "ids", "free", "scalar"), s.inputNames(), "the initializer w is not a real input");
        TensorSignature free = s.input("free").orElseThrow();
        assertTrue(!free.rankKnown() && free.dims().isEmpty(), "no shape field: unknown rank");
        assertEquals("[unknown rank]", free.shapeText());
        TensorSignature scalar = s.input("scalar").orElseThrow();
        assertTrue(scalar.rankKnown() && scalar.rank() == 0, "an empty shape is a scalar");
        TensorSignature x = s.input("x").orElseThrow();
        assertEquals(ElementType.FLOAT16, x.elementType());
        assertEquals(List.of(Dim.fixed(1), Dim.symbolic("image_seq"), Dim.fixed(4)), x.dims());
        assertEquals("[1, image_seq, 4]", x.shapeText());
        assertEquals(ElementType.INT64, s.input("ids").orElseThrow().elementType());
        assertEquals(List.of("y"), s.outputNames());
        assertEquals(java.util.Set.of("image_seq", "batch"), inputSymbols(s));
    }

    @Test
    void agreesWithOnnxRuntime() throws Exception {
        Path file = writeModel(64);
        GraphSignature s = OnnxHeaderReader.read(file);
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        try (OrtSession.SessionOptions options = new OrtSession.SessionOptions();
                OrtSession session = env.createSession(file.toString(), options)) {
            Map<String, NodeInfo> inputs = session.getInputInfo();
            assertEquals(inputs.keySet(), new java.util.LinkedHashSet<>(s.inputNames()));
            for (TensorSignature t : s.inputs()) {
                // ONNX Runtime reports an unknown rank as rank 0 too: it cannot tell it from a scalar.
                TensorInfo info = (TensorInfo) inputs.get(t.name()).getInfo();
                long[] shape = t.dims().stream().mapToLong(Dim::value).toArray();
                assertArrayEquals(info.getShape(), shape, t.name());
                String[] names = t.dims().stream().map(Dim::symbol).toArray(String[]::new);
                assertArrayEquals(info.getDimensionNames(), names, t.name());
            }
        }
    }

    @Test
    void rejectsFilesThatAreNotOnnx() throws IOException {
        Path junk = Files.write(dir.resolve("junk.onnx"), new byte[] {(byte) 0xFF, (byte) 0xFF, 0x01});
        IOException e = assertThrows(IOException.class, () -> OnnxHeaderReader.read(junk));
        assertTrue(e.getMessage().contains("junk.onnx"), e.getMessage());
        Path empty = Files.write(dir.resolve("empty.onnx"), new byte[0]);
        e = assertThrows(IOException.class, () -> OnnxHeaderReader.read(empty));
        assertTrue(e.getMessage().contains("no graph"), e.getMessage());
    }

    @Test
    void truncatedFileIsReported() throws IOException {
        byte[] full = Files.readAllBytes(writeModel(1000));
        Path cut = Files.write(dir.resolve("cut.onnx"), java.util.Arrays.copyOf(full, full.length - 10));
        assertThrows(IOException.class, () -> OnnxHeaderReader.read(cut));
    }

    private Path identityModel(String name, long middleDim) throws IOException {
        OnnxMl.GraphProto graph = OnnxMl.GraphProto.newBuilder()
                .setName("g")
                .addNode(OnnxMl.NodeProto.newBuilder()
                        .setOpType("Identity")
                        .addInput("x")
                        .addOutput("y"))
                .addInput(value("x", OnnxMl.TensorProto.DataType.FLOAT, 1, middleDim, 4))
                .addOutput(value("y", OnnxMl.TensorProto.DataType.FLOAT, 1, middleDim, 4))
                .build();
        return Files.write(
                dir.resolve(name),
                OnnxMl.ModelProto.newBuilder()
                        .setIrVersion(8)
                        .addOpsetImport(OnnxMl.OperatorSetIdProto.newBuilder().setVersion(17))
                        .setGraph(graph)
                        .build()
                        .toByteArray());
    }

    @Test
    void aNegativeDimValueIsAFreeDimensionAsOnnxRuntimeReportsIt() throws Exception {
        Path minusOne = identityModel("minus-one.onnx", -1);
        TensorSignature x = OnnxHeaderReader.read(minusOne).input("x").orElseThrow();
        assertEquals(List.of(Dim.fixed(1), Dim.symbolic(""), Dim.fixed(4)), x.dims());
        try (OrtSession.SessionOptions options = new OrtSession.SessionOptions();
                OrtSession session = OrtEnvironment.getEnvironment().createSession(minusOne.toString(), options)) {
            TensorInfo info = (TensorInfo) session.getInputInfo().get("x").getInfo();
            assertArrayEquals(
                    info.getShape(), x.dims().stream().mapToLong(Dim::value).toArray());
        }
        // Any other negative value is read the same way instead of failing with an IllegalArgumentException.
        TensorSignature other = OnnxHeaderReader.read(identityModel("minus-three.onnx", -3))
                .input("x")
                .orElseThrow();
        assertEquals(Dim.symbolic(""), other.dim(1));
    }

    @Test
    void aCorruptLengthPrefixIsAnIoErrorNamingTheFile() throws IOException {
        byte[] huge = {
            (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x7F
        };
        // ModelProto.graph (field 7) whose length prefix is close to 2^63
        byte[] graph = concat(new byte[] {0x3A}, huge, new byte[] {0x0A, 0x00});
        // a well-formed graph holding an input (field 11) whose name (field 1) has such a length
        byte[] name = concat(new byte[] {0x0A}, huge);
        byte[] input = concat(new byte[] {0x5A, (byte) name.length}, name);
        byte[] nested = concat(new byte[] {0x3A, (byte) input.length}, input);
        for (byte[] bytes : List.of(graph, nested)) {
            Path file = Files.write(dir.resolve("corrupt.onnx"), bytes);
            IOException e = assertThrows(IOException.class, () -> OnnxHeaderReader.read(file));
            assertTrue(e.getMessage().contains("corrupt.onnx") && e.getMessage().contains("runs past"), e.getMessage());
        }
    }

    private static byte[] concat(byte[]... parts) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    /** Every symbolic dimension name the inputs use. */
    private static java.util.Set<String> inputSymbols(GraphSignature s) {
        java.util.Set<String> symbols = new java.util.LinkedHashSet<>();
        for (TensorSignature t : s.inputs()) {
            for (Dim d : t.dims()) {
                if (!d.isFixed() && !d.symbol().isEmpty()) {
                    symbols.add(d.symbol());
                }
            }
        }
        return symbols;
    }
}
