package dev.flux2.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.Flux2Exception;
import dev.flux2.api.GenerationCancelledException;
import dev.flux2.api.InferenceException;
import dev.flux2.api.InvalidImageException;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.api.MemoryPolicy;
import dev.flux2.api.ModelLoadException;
import dev.flux2.hub.HubException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Option parsing and exit codes of the CLI, without a model. */
class Flux2CliTest {
    @TempDir
    Path tmp;

    private static GenerateCommand parseGenerate(String... args) {
        CommandLine cmd = Flux2Cli.newCommandLine();
        CommandLine.ParseResult result = cmd.parseArgs(args);
        return result.subcommand().commandSpec().commandLine().getCommand();
    }

    @Test
    void noCommandIsAUsageError() {
        CliHarness.Run run = CliHarness.run();
        assertEquals(ExitCodes.USAGE, run.exitCode());
        assertTrue(run.err().contains("missing command"), run.err());
    }

    @Test
    void unknownOptionIsAUsageErrorWithOneLineAndAHint() {
        CliHarness.Run run = CliHarness.run("generate", "--model", "m", "--prompt", "p", "--bogus");
        assertEquals(ExitCodes.USAGE, run.exitCode());
        assertTrue(run.err().startsWith("flux2: Unknown option: '--bogus'"), run.err());
        assertTrue(run.err().contains("flux2 generate --help"), run.err());
        assertEquals("", run.out());
    }

    @Test
    void missingRequiredOptionIsAUsageError() {
        CliHarness.Run run = CliHarness.run("generate", "--model", "m");
        assertEquals(ExitCodes.USAGE, run.exitCode());
        assertTrue(run.err().contains("--prompt"), run.err());
    }

    @Test
    void malformedNumberAndUnknownEnumAreUsageErrors() {
        assertEquals(
                ExitCodes.USAGE,
                CliHarness.run("generate", "--model", "m", "--prompt", "p", "--steps", "four")
                        .exitCode());
        CliHarness.Run run = CliHarness.run("generate", "--model", "m", "--prompt", "p", "--memory", "lazy");
        assertEquals(ExitCodes.USAGE, run.exitCode());
        assertTrue(
                run.err().contains("SEQUENTIAL")
                        && run.err().contains("RESIDENT")
                        && run.err().contains("AUTO"),
                run.err());
    }

    @Test
    void invalidRequestValuesFailBeforeTheModelLoads() {
        // The model folder does not exist: a usage error must win over the model error.
        String missing = tmp.resolve("no-such-bundle").toString();
        CliHarness.Run size = CliHarness.run("generate", "--model", missing, "--prompt", "p", "--width", "1000");
        assertEquals(ExitCodes.USAGE, size.exitCode());
        assertTrue(size.err().contains("width must be a positive multiple of 16, got 1000"), size.err());
        assertEquals(1, size.err().strip().lines().count(), "one line, no stack trace: " + size.err());

        CliHarness.Run strength = CliHarness.run("generate", "--model", missing, "--prompt", "p", "--strength", "0.5");
        assertEquals(ExitCodes.USAGE, strength.exitCode());
        assertTrue(strength.err().contains("without an init image"), strength.err());

        CliHarness.Run image = CliHarness.run(
                "generate",
                "--model",
                missing,
                "--prompt",
                "p",
                "--init-image",
                tmp.resolve("missing.png").toString());
        assertEquals(ExitCodes.USAGE, image.exitCode());
        assertTrue(image.err().contains("missing.png"), image.err());
    }

    @Test
    void missingModelFolderIsAModelError() {
        String missing = tmp.resolve("no-such-bundle").toString();
        CliHarness.Run gen = CliHarness.run(
                "generate",
                "--model",
                missing,
                "--prompt",
                "p",
                "--seed",
                "1",
                "--output",
                tmp.resolve("x.png").toString(),
                "--no-progress");
        assertEquals(ExitCodes.MODEL, gen.exitCode(), gen.err());
        assertTrue(gen.err().contains("no-such-bundle"), gen.err());
        assertTrue(gen.out().contains("seed: 1"), "the seed is printed before the model loads: " + gen.out());

        CliHarness.Run info = CliHarness.run("info", "--model", missing);
        assertEquals(ExitCodes.MODEL, info.exitCode(), info.err());

        CliHarness.Run tok = CliHarness.run("tokenize", "--model", missing, "--prompt", "p");
        assertEquals(ExitCodes.MODEL, tok.exitCode(), tok.err());
        assertTrue(tok.err().contains("does not exist"), tok.err());
    }

    @Test
    void verbosePrintsTheStackTrace() {
        CliHarness.Run run = CliHarness.run(
                "tokenize", "-v", "--model", tmp.resolve("nothing").toString(), "--prompt", "p");
        assertEquals(ExitCodes.MODEL, run.exitCode());
        assertTrue(run.err().contains("at dev.flux2.cli"), run.err());
    }

    @Test
    void generateOptionsParseWithDefaults() {
        GenerateCommand g = parseGenerate("generate", "--model", "m", "--prompt", "a fox");
        assertEquals(1, g.numImages);
        assertEquals(0, g.threads);
        assertEquals(MemoryPolicy.AUTO, g.memory);
        assertEquals(null, g.seed);
        assertEquals(null, g.width);
        assertFalse(g.noFused);
        assertEquals(null, g.cpuTuned);
        assertFalse(g.noSpinning);
        assertEquals("true", parseGenerate("generate", "--model", "m", "-p", "x", "--cpu-tuned").cpuTuned);
        assertEquals("fp32", parseGenerate("generate", "--model", "m", "-p", "x", "--cpu-tuned=fp32").cpuTuned);
        assertEquals(null, g.attention);
        assertEquals("fused", parseGenerate("generate", "--model", "m", "-p", "x", "--attention", "fused").attention);
        assertEquals(null, g.gpuWeights);
        assertEquals(
                "packed", parseGenerate("generate", "--model", "m", "-p", "x", "--gpu-weights", "packed").gpuWeights);

        GenerateCommand all = parseGenerate(
                "generate",
                "--model",
                "m",
                "-p",
                "x",
                "-W",
                "512",
                "-H",
                "256",
                "--steps",
                "8",
                "--seed",
                "42",
                "--guidance",
                "3.5",
                "--reference",
                "a.png",
                "--reference",
                "b.png",
                "--num-images",
                "3",
                "--threads",
                "2",
                "--provider",
                "cuda,cpu",
                "--memory",
                "RESIDENT",
                "--no-fused",
                "--init-image",
                "i.png",
                "--strength",
                "0.6");
        assertEquals(512, all.width);
        assertEquals(256, all.height);
        assertEquals(8, all.steps);
        assertEquals(42L, all.seed);
        assertEquals(3.5f, all.guidance);
        assertEquals(List.of(Path.of("a.png"), Path.of("b.png")), all.references);
        assertEquals(List.of("cuda", "cpu"), all.providerOptions.providers);
        assertEquals(MemoryPolicy.RESIDENT, all.memory);
        assertTrue(all.noFused);
        assertEquals(0.6, all.strength);
    }

    @Test
    void outputNamesFollowSeedAndImageIndex() {
        GenerateCommand single = parseGenerate("generate", "--model", "m", "-p", "x");
        assertEquals(List.of(Path.of("flux2-7.png")), single.outputPaths(7));
        GenerateCommand several = parseGenerate("generate", "--model", "m", "-p", "x", "-k", "3", "-o", "out/img.png");
        assertEquals(
                List.of(Path.of("out/img-0.png"), Path.of("out/img-1.png"), Path.of("out/img-2.png")),
                several.outputPaths(7));
        GenerateCommand defaults = parseGenerate("generate", "--model", "m", "-p", "x", "-k", "2");
        assertEquals(List.of(Path.of("flux2-7.png"), Path.of("flux2-8.png")), defaults.outputPaths(7));
    }

    @Test
    void randomSeedsAreNonNegative32BitValues() {
        for (int i = 0; i < 100; i++) {
            long s = GenerateCommand.randomSeed();
            assertTrue(s >= 0 && s < (1L << 32), "seed " + s);
        }
    }

    @Test
    void exceptionsMapToTheDocumentedExitCodes() {
        assertEquals(130, ExitCodes.of(new GenerationCancelledException("denoise step 2/4")));
        assertEquals(2, ExitCodes.of(new InvalidRequestException("width")));
        assertEquals(2, ExitCodes.of(new InvalidImageException("init image")));
        assertEquals(3, ExitCodes.of(new ModelLoadException("shard missing")));
        assertEquals(3, ExitCodes.of(new HubException("404")));
        assertEquals(4, ExitCodes.of(new InferenceException("transformer step 1/4")));
        assertEquals(4, ExitCodes.of(new Flux2Exception("other")));
        assertEquals(1, ExitCodes.of(new java.io.IOException("disk full")));
    }

    @Test
    void helpAndVersionExitWithZero() {
        CliHarness.Run help = CliHarness.run("generate", "--help");
        assertEquals(0, help.exitCode());
        assertTrue(help.out().contains("--init-image") && help.out().contains("--no-fused"), help.out());
        CliHarness.Run top = CliHarness.run("--help");
        assertTrue(top.out().contains("130") && top.out().contains("download"), top.out());
        assertEquals(0, CliHarness.run("--version").exitCode());
    }
}
