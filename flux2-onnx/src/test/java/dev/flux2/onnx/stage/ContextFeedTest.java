package dev.flux2.onnx.stage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import ai.onnxruntime.OnnxTensor;
import dev.flux2.api.MemoryPolicy;
import dev.flux2.onnx.SeedConfigFiles;
import dev.flux2.onnx.bundle.BundleConfig;
import dev.flux2.onnx.bundle.BundleConfigReader;
import dev.flux2.onnx.bundle.BundleIo;
import dev.flux2.onnx.bundle.ElementType;
import dev.flux2.onnx.bundle.GraphContracts;
import dev.flux2.onnx.bundle.GraphContractsTest;
import dev.flux2.onnx.bundle.TensorSignature;
import dev.flux2.onnx.session.ExecutionProviders;
import dev.flux2.onnx.session.SessionCache;
import dev.flux2.onnx.session.SessionFactory;
import dev.flux2.onnx.session.SharedEnvironment;
import dev.flux2.onnx.tensor.DirectBufferPool;
import dev.flux2.onnx.tensor.OutputReader;
import dev.flux2.spi.TokenizedPrompt;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The text context fed to a transformer whose ctx type differs from the text encoder's output. */
class ContextFeedTest {
    @TempDir
    Path dir;

    private static OnnxTextEmbedding embedding(StageResources resources, float[] values) {
        TokenizedPrompt tokens = new TokenizedPrompt(new long[2], new long[2], 2, 0);
        var ctx = resources.allocate(ElementType.FLOAT, 1, 2, values.length / 2);
        ctx.writeFloats(values, 0, values.length, 0);
        return new OnnxTextEmbedding(tokens, ctx);
    }

    @Test
    void thePromptAndTheNegativePromptAreEachConvertedOnceAndReused() {
        BundleConfig config = BundleConfigReader.read(
                SeedConfigFiles.write(SeedConfigFiles.seedConfig(), dir.resolve(BundleConfigReader.FILE_NAME)));
        BundleIo io = GraphContracts.check(config, GraphContractsTest.documented());
        TensorSignature ctxInput = io.transformer().inputs().ctx();
        assertEquals(ElementType.FLOAT16, ctxInput.elementType(), "the seed transformer takes an fp16 context");
        DirectBufferPool pool = new DirectBufferPool(1 << 20);
        try (SessionCache sessions = new SessionCache(
                new SessionFactory(SharedEnvironment.get(), ExecutionProviders.cpuOnly(), 0),
                MemoryPolicy.SEQUENTIAL)) {
            StageResources resources = new StageResources(
                    SharedEnvironment.get(),
                    sessions,
                    config,
                    io,
                    new SessionSpecs(config, io, true, Optional.empty()),
                    pool);
            float[] promptValues = {0.1f, -2.5f, 3.0f, 70000f};
            float[] negativeValues = {1f, 2f, -3f, 4.75f};
            try (OnnxTextEmbedding prompt = embedding(resources, promptValues);
                    OnnxTextEmbedding negative = embedding(resources, negativeValues)) {
                long acquiredBefore = pool.allocatedCount() + pool.reusedCount();
                OnnxTensor promptCtx;
                OnnxTensor negativeCtx;
                try (ContextFeed feed = new ContextFeed(resources, ctxInput)) {
                    promptCtx = feed.tensorFor(prompt);
                    negativeCtx = feed.tensorFor(negative);
                    // Classifier-free guidance alternates the two texts every step.
                    for (int step = 0; step < 4; step++) {
                        assertSame(promptCtx, feed.tensorFor(prompt), "step " + step + ": prompt");
                        assertSame(negativeCtx, feed.tensorFor(negative), "step " + step + ": negative prompt");
                    }
                    assertEquals(
                            2,
                            pool.allocatedCount() + pool.reusedCount() - acquiredBefore,
                            "one conversion per text, not one per step");
                    // fp16 values, saturated at 65504 as the engine feeds them
                    assertArrayEquals(
                            new float[] {0.099975586f, -2.5f, 3.0f, 65504f},
                            OutputReader.floats(promptCtx, new long[] {1, 2, 2}, "prompt ctx"));
                    assertArrayEquals(
                            negativeValues, OutputReader.floats(negativeCtx, new long[] {1, 2, 2}, "negative ctx"));
                }
                long pooledBeforeEmbeddingsClose = pool.pooledBytes();
                assertEquals(2L * 4 * 2, pooledBeforeEmbeddingsClose, "both fp16 conversions given back on close");
            }
        }
    }
}
