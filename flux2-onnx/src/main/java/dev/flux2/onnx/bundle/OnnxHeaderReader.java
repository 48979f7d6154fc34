package dev.flux2.onnx.bundle;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a graph's declared inputs and outputs straight from the {@code .onnx} protobuf, without ONNX Runtime and
 * without reading weights.
 *
 * <p>Why not open a session: a session loads every initializer, which for the bundle's transformer means its
 * 2.5 GB of external-data shards; {@code Flux2Pipeline.Builder.build()} must check every graph's signature and
 * stay cheap. Why not a protobuf library: only six message types are needed, and a streaming reader can skip
 * inline initializers (85 MB in a VAE stage) by seeking instead of parsing them. Inputs that are also initializers
 * (older IR versions list them as inputs) are removed, as ONNX Runtime does. The external-data references of the
 * initializers ({@code location}, {@code offset}, {@code length}) are collected so that missing or truncated
 * shards can be named before ONNX Runtime tries to read them.
 *
 * <p>Stateless and thread-safe.
 */
final class OnnxHeaderReader {
    // ModelProto
    private static final int MODEL_GRAPH = 7;
    // GraphProto
    private static final int GRAPH_INITIALIZER = 5;
    private static final int GRAPH_INPUT = 11;
    private static final int GRAPH_OUTPUT = 12;
    private static final int GRAPH_SPARSE_INITIALIZER = 15;
    // TensorProto
    private static final int TENSOR_NAME = 8;
    private static final int TENSOR_EXTERNAL_DATA = 13;
    // StringStringEntryProto
    private static final int ENTRY_KEY = 1;
    private static final int ENTRY_VALUE = 2;
    // SparseTensorProto
    private static final int SPARSE_VALUES = 1;
    // ValueInfoProto
    private static final int VALUE_NAME = 1;
    private static final int VALUE_TYPE = 2;
    // TypeProto
    private static final int TYPE_TENSOR = 1;
    // TypeProto.Tensor
    private static final int TENSOR_ELEM_TYPE = 1;
    private static final int TENSOR_SHAPE = 2;
    // TensorShapeProto
    private static final int SHAPE_DIM = 1;
    // TensorShapeProto.Dimension
    private static final int DIM_VALUE = 1;
    private static final int DIM_PARAM = 2;

    private OnnxHeaderReader() {}

    /**
     * @param file an ONNX model file
     * @return its declared inputs (initializers excluded) and outputs
     * @throws IOException when the file cannot be read or is not an ONNX model
     */
    public static GraphSignature read(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            ProtoReader in = new ProtoReader(channel);
            long end = in.size();
            boolean sawGraph = false;
            List<TensorSignature> inputs = new ArrayList<>();
            List<TensorSignature> outputs = new ArrayList<>();
            Set<String> initializers = new HashSet<>();
            Map<String, Long> external = new LinkedHashMap<>();
            while (in.position() < end) {
                int tag = in.readTag();
                if (tag >>> 3 == MODEL_GRAPH && (tag & 7) == ProtoReader.LENGTH_DELIMITED) {
                    long graphEnd = in.readLengthEnd(end);
                    readGraph(in, graphEnd, new Collected(inputs, outputs, initializers, external));
                    sawGraph = true;
                } else {
                    in.skipValue(tag & 7, end);
                }
            }
            if (!sawGraph) {
                throw new IOException("no graph in " + file.getFileName() + " (not an ONNX model file?)");
            }
            inputs.removeIf(t -> initializers.contains(t.name()));
            return new GraphSignature(file, inputs, outputs, external);
        } catch (IOException e) {
            throw new IOException(
                    "cannot read the ONNX graph header of " + file + ": " + dev.flux2.spi.ModelFiles.reason(e), e);
        }
    }

    /** What one graph's header yields. */
    private record Collected(
            List<TensorSignature> inputs,
            List<TensorSignature> outputs,
            Set<String> initializers,
            Map<String, Long> externalData) {}

    private static void readGraph(ProtoReader in, long end, Collected out) throws IOException {
        while (in.position() < end) {
            int tag = in.readTag();
            int field = tag >>> 3;
            int wire = tag & 7;
            if (wire != ProtoReader.LENGTH_DELIMITED) {
                in.skipValue(wire, end);
                continue;
            }
            long fieldEnd = in.readLengthEnd(end);
            switch (field) {
                case GRAPH_INPUT -> out.inputs().add(readValueInfo(in, fieldEnd));
                case GRAPH_OUTPUT -> out.outputs().add(readValueInfo(in, fieldEnd));
                case GRAPH_INITIALIZER ->
                    addIfPresent(out.initializers(), readInitializer(in, fieldEnd, out.externalData()));
                case GRAPH_SPARSE_INITIALIZER -> addIfPresent(out.initializers(), readSparseName(in, fieldEnd));
                default -> in.seek(fieldEnd, end);
            }
            in.seek(fieldEnd, end);
        }
    }

    private static void addIfPresent(Set<String> names, String name) {
        if (name != null) {
            names.add(name);
        }
    }

    /** Reads a TensorProto's name, recording its external-data extent (if any) into {@code external}. */
    private static String readInitializer(ProtoReader in, long end, Map<String, Long> external) throws IOException {
        String name = null;
        Map<String, String> entries = new HashMap<>();
        while (in.position() < end) {
            int tag = in.readTag();
            int field = tag >>> 3;
            if (field == TENSOR_NAME && (tag & 7) == ProtoReader.LENGTH_DELIMITED) {
                name = in.readString(in.readLengthEnd(end));
            } else if (field == TENSOR_EXTERNAL_DATA && (tag & 7) == ProtoReader.LENGTH_DELIMITED) {
                readEntry(in, in.readLengthEnd(end), entries);
            } else {
                in.skipValue(tag & 7, end);
            }
        }
        String location = entries.get("location");
        if (location != null) {
            long extent = parseLong(entries.get("offset")) + parseLong(entries.get("length"));
            external.merge(location, extent, Math::max);
        }
        return name;
    }

    private static void readEntry(ProtoReader in, long end, Map<String, String> entries) throws IOException {
        String key = null;
        String value = "";
        while (in.position() < end) {
            int tag = in.readTag();
            int field = tag >>> 3;
            if (field == ENTRY_KEY && (tag & 7) == ProtoReader.LENGTH_DELIMITED) {
                key = in.readString(in.readLengthEnd(end));
            } else if (field == ENTRY_VALUE && (tag & 7) == ProtoReader.LENGTH_DELIMITED) {
                value = in.readString(in.readLengthEnd(end));
            } else {
                in.skipValue(tag & 7, end);
            }
        }
        if (key != null) {
            entries.put(key, value);
        }
    }

    /** @return the number, or 0 when absent or not a number (ONNX Runtime then reports the real problem) */
    private static long parseLong(String text) {
        if (text == null) {
            return 0;
        }
        try {
            return Math.max(0, Long.parseLong(text.trim()));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static String readTensorName(ProtoReader in, long end) throws IOException {
        String name = null;
        while (in.position() < end) {
            int tag = in.readTag();
            if (tag >>> 3 == TENSOR_NAME && (tag & 7) == ProtoReader.LENGTH_DELIMITED) {
                name = in.readString(in.readLengthEnd(end));
            } else {
                in.skipValue(tag & 7, end);
            }
        }
        return name;
    }

    private static String readSparseName(ProtoReader in, long end) throws IOException {
        String name = null;
        while (in.position() < end) {
            int tag = in.readTag();
            if (tag >>> 3 == SPARSE_VALUES && (tag & 7) == ProtoReader.LENGTH_DELIMITED) {
                name = readTensorName(in, in.readLengthEnd(end));
            } else {
                in.skipValue(tag & 7, end);
            }
        }
        return name;
    }

    private static TensorSignature readValueInfo(ProtoReader in, long end) throws IOException {
        String name = "";
        ElementType type = ElementType.UNDEFINED;
        boolean shaped = false;
        List<Dim> dims = new ArrayList<>();
        while (in.position() < end) {
            int tag = in.readTag();
            int field = tag >>> 3;
            if (field == VALUE_NAME && (tag & 7) == ProtoReader.LENGTH_DELIMITED) {
                name = in.readString(in.readLengthEnd(end));
            } else if (field == VALUE_TYPE && (tag & 7) == ProtoReader.LENGTH_DELIMITED) {
                TypeInfo info = readType(in, in.readLengthEnd(end), dims);
                type = info.type();
                shaped = info.shaped();
            } else {
                in.skipValue(tag & 7, end);
            }
        }
        return new TensorSignature(name, type, dims, shaped);
    }

    /** A tensor type: its element type, and whether it declares a shape (without one the rank is unknown). */
    private record TypeInfo(ElementType type, boolean shaped) {}

    /** Reads a TypeProto into {@code dims}; only tensor types are described, anything else is UNDEFINED. */
    private static TypeInfo readType(ProtoReader in, long end, List<Dim> dims) throws IOException {
        ElementType type = ElementType.UNDEFINED;
        boolean shaped = false;
        while (in.position() < end) {
            int tag = in.readTag();
            if (tag >>> 3 == TYPE_TENSOR && (tag & 7) == ProtoReader.LENGTH_DELIMITED) {
                long tensorEnd = in.readLengthEnd(end);
                while (in.position() < tensorEnd) {
                    int t = in.readTag();
                    int field = t >>> 3;
                    if (field == TENSOR_ELEM_TYPE && (t & 7) == ProtoReader.VARINT) {
                        type = ElementType.fromOnnxCode((int) in.readVarint());
                    } else if (field == TENSOR_SHAPE && (t & 7) == ProtoReader.LENGTH_DELIMITED) {
                        shaped = true;
                        readShape(in, in.readLengthEnd(tensorEnd), dims);
                    } else {
                        in.skipValue(t & 7, tensorEnd);
                    }
                }
            } else {
                in.skipValue(tag & 7, end);
            }
        }
        return new TypeInfo(type, shaped);
    }

    private static void readShape(ProtoReader in, long end, List<Dim> dims) throws IOException {
        while (in.position() < end) {
            int tag = in.readTag();
            if (tag >>> 3 == SHAPE_DIM && (tag & 7) == ProtoReader.LENGTH_DELIMITED) {
                long dimEnd = in.readLengthEnd(end);
                Dim dim = Dim.symbolic("");
                while (in.position() < dimEnd) {
                    int t = in.readTag();
                    int field = t >>> 3;
                    if (field == DIM_VALUE && (t & 7) == ProtoReader.VARINT) {
                        long value = in.readVarint();
                        // A negative dim_value (-1 from some exporters) is not a size: ONNX Runtime reports such a
                        // dimension as free (-1), and so does this reader.
                        dim = value >= 0 ? Dim.fixed(value) : Dim.symbolic("");
                    } else if (field == DIM_PARAM && (t & 7) == ProtoReader.LENGTH_DELIMITED) {
                        dim = Dim.symbolic(in.readString(in.readLengthEnd(dimEnd)));
                    } else {
                        in.skipValue(t & 7, dimEnd);
                    }
                }
                dims.add(dim);
            } else {
                in.skipValue(tag & 7, end);
            }
        }
    }
}
