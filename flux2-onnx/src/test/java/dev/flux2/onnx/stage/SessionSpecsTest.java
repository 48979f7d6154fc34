package dev.flux2.onnx.stage;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flux2.onnx.SeedConfigFiles;
import dev.flux2.onnx.bundle.BundleConfig;
import dev.flux2.onnx.bundle.BundleConfigReader;
import dev.flux2.onnx.bundle.BundleIo;
import dev.flux2.onnx.bundle.GraphContracts;
import dev.flux2.onnx.bundle.GraphContractsTest;
import dev.flux2.onnx.options.OptimizationLevel;
import dev.flux2.onnx.session.SessionSpec;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SessionSpecsTest {
    @TempDir
    Path dir;

    private BundleConfig config;
    private BundleIo io;

    @BeforeEach
    void load() {
        ObjectNode n = SeedConfigFiles.seedConfig();
        ((ObjectNode) n.get("models").get("vae_decoder_pre")).put("graph_optimization_level", "disabled");
        config = BundleConfigReader.read(SeedConfigFiles.write(n, dir.resolve(BundleConfigReader.FILE_NAME)));
        io = GraphContracts.check(config, GraphContractsTest.documented());
    }

    @Test
    void pinsTheSymbolsOfTheFedShapes() {
        SessionSpecs specs = new SessionSpecs(config, io, true, Optional.empty());
        // Transformer with 12 noise + 4 reference tokens: image_seq is what is fed (16), not H/16·W/16.
        SessionSpec spec = specs.forInputs(
                "transformer",
                Map.of(
                        "x",
                        new long[] {1, 16, 128},
                        "x_ids",
                        new long[] {1, 16, 4},
                        "timesteps",
                        new long[] {1},
                        "ctx",
                        new long[] {1, 512, 7680},
                        "ctx_ids",
                        new long[] {1, 512, 4}));
        assertEquals(Map.of("image_seq", 16L), spec.dimensions());
        assertEquals(config.directory().resolve("flux2-klein-4b-transformer-q4.onnx"), spec.file());
        assertEquals(OptimizationLevel.ALL, spec.optimizationLevel());
        SessionSpec text = specs.forInputs(
                "text_encoder", Map.of("input_ids", new long[] {1, 512}, "attention_mask", new long[] {1, 512}));
        assertEquals(Map.of("batch", 1L, "text_seq", 512L), text.dimensions());
    }

    @Test
    void aSymbolFedTwoSizesIsLeftFree() {
        SessionSpec spec = new SessionSpecs(config, io, true, Optional.empty())
                .forInputs(
                        "vae_decoder_attn_chunk",
                        Map.of(
                                "q_chunk",
                                new long[] {1, 1, 20, 512},
                                "kt",
                                new long[] {1, 1, 512, 48},
                                "v",
                                new long[] {1, 1, 40, 512}));
        assertEquals(Map.of("chunk_seq", 20L), spec.dimensions(), "kv_seq was fed as 48 and 40");
    }

    @Test
    void pinningCanBeSwitchedOffAndLevelsFollowOptionThenConfig() {
        SessionSpecs free = new SessionSpecs(config, io, false, Optional.empty());
        SessionSpec pre = free.forInputs("vae_decoder_pre", Map.of("z", new long[] {1, 128, 16, 16}));
        assertEquals(Map.of(), pre.dimensions());
        assertEquals(OptimizationLevel.DISABLED, pre.optimizationLevel(), "the config's per-graph level");
        SessionSpecs forced = new SessionSpecs(config, io, true, Optional.of(OptimizationLevel.BASIC));
        assertEquals(
                OptimizationLevel.BASIC,
                forced.forInputs("vae_decoder_pre", Map.of("z", new long[] {1, 128, 16, 16}))
                        .optimizationLevel(),
                "the option overrides the config");
        assertEquals(
                Map.of("latent_height", 16L, "latent_width", 16L),
                forced.forInputs("vae_decoder_pre", Map.of("z", new long[] {1, 128, 16, 16}))
                        .dimensions());
    }
}
