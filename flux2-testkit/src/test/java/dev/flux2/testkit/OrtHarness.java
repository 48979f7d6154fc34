package dev.flux2.testkit;

import ai.onnxruntime.OnnxJavaType;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OnnxValue;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.OrtSession.SessionOptions.OptLevel;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** Opens one graph file by path with ONNX Runtime and runs it on float/long arrays. */
final class OrtHarness implements AutoCloseable {
    private static final OrtEnvironment ENV = OrtEnvironment.getEnvironment();

    private final OrtSession.SessionOptions options;
    private final OrtSession session;
    private final Map<String, OnnxTensor> feeds = new LinkedHashMap<>();

    private OrtHarness(Path graph, OptLevel level, Map<String, Long> symbolicDims) throws OrtException {
        options = new OrtSession.SessionOptions();
        OrtSession created = null;
        try {
            options.setOptimizationLevel(level);
            options.setIntraOpNumThreads(1);
            for (Map.Entry<String, Long> e : symbolicDims.entrySet()) {
                options.setSymbolicDimensionValue(e.getKey(), e.getValue());
            }
            created = ENV.createSession(graph.toString(), options);
        } finally {
            if (created == null) {
                options.close();
            }
        }
        session = created;
    }

    /** Opens with the given free-dimension overrides (what {@code setSymbolicDimensionValue} pins). */
    static OrtHarness open(Path graph, Map<String, Long> symbolicDims) throws OrtException {
        return new OrtHarness(graph, OptLevel.ALL_OPT, symbolicDims);
    }

    static OrtHarness open(Path graph) throws OrtException {
        return new OrtHarness(graph, OptLevel.ALL_OPT, Map.of());
    }

    static OrtHarness open(Path graph, OptLevel level) throws OrtException {
        return new OrtHarness(graph, level, Map.of());
    }

    OrtSession session() {
        return session;
    }

    OrtHarness fp16(String name, float[] values, long... shape) throws OrtException {
        ShortBuffer buf = ByteBuffer.allocateDirect(values.length * 2)
                .order(ByteOrder.nativeOrder())
                .asShortBuffer();
        for (float v : values) {
            buf.put(Fp16.fromFloat(v));
        }
        buf.rewind();
        return put(name, OnnxTensor.createTensor(ENV, buf, shape, OnnxJavaType.FLOAT16));
    }

    OrtHarness f32(String name, float[] values, long... shape) throws OrtException {
        return put(name, OnnxTensor.createTensor(ENV, FloatBuffer.wrap(values), shape));
    }

    OrtHarness i64(String name, long[] values, long... shape) throws OrtException {
        return put(name, OnnxTensor.createTensor(ENV, LongBuffer.wrap(values), shape));
    }

    private OrtHarness put(String name, OnnxTensor tensor) {
        OnnxTensor old = feeds.put(name, tensor);
        if (old != null) {
            old.close();
        }
        return this;
    }

    /** Runs with the current feeds and returns every output widened to float. */
    Map<String, float[]> run() throws OrtException {
        Map<String, float[]> out = new LinkedHashMap<>();
        try (OrtSession.Result result = session.run(feeds)) {
            for (Map.Entry<String, OnnxValue> e : result) {
                OnnxTensor t = (OnnxTensor) e.getValue();
                FloatBuffer fb = t.getFloatBuffer();
                float[] values = new float[fb.remaining()];
                fb.get(values);
                out.put(e.getKey(), values);
            }
        }
        return out;
    }

    @Override
    public void close() throws OrtException {
        for (OnnxTensor t : feeds.values()) {
            t.close();
        }
        feeds.clear();
        session.close();
        options.close();
    }
}
