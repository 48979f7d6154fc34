package dev.flux2.onnx.passes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import ai.onnx.proto.OnnxMl.ModelProto;
import com.google.protobuf.CodedInputStream;
import dev.flux2.testkit.timing.TimingTransformerFiles;
import dev.flux2.testkit.timing.TimingTransformerSpec;
import dev.flux2.testkit.timing.TimingTransformerWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One golden hash per pass: SHA-256 of what the pass writes (the graph message and any new data) for a fixed
 * testkit graph, the timing transformer (fp16, RMSNorm, RoPE, head groups, block-16 {@code MatMulNBits} at accuracy
 * level 4). Derived graphs are stored under the passes' ids and versions, so a pass whose output changes must
 * raise its version, or old derived graphs would be served as the new form: when a hash below stops matching,
 * raise the pass's {@code VERSION} and write the new hash with it.
 *
 * <p>The hashes were recorded on 2026-12-04 from the rewriters as they were before the graph passes existed
 * ({@code AttentionFuser}, {@code WeightDequantizer}, {@code GraphRewriter} at main d0db132 plus the fp16 MHA
 * form): the passes write byte for byte what those wrote.
 */
class PassGoldenTest {
    private static final String LOCATION = ".flux2/x.data";

    @TempDir
    static Path dir;

    private static TimingTransformerFiles files;
    private static ModelProto source;

    @BeforeAll
    static void writeGraph() throws IOException {
        TimingTransformerSpec spec = TimingTransformerSpec.builder()
                .heads(4)
                .contextDim(64)
                .blocks(1, 2)
                .headGroups(2)
                .build();
        files = TimingTransformerWriter.write(spec, dir);
        try (InputStream in = Files.newInputStream(files.graphFile())) {
            CodedInputStream coded = CodedInputStream.newInstance(in);
            coded.setSizeLimit(Integer.MAX_VALUE);
            source = ModelProto.parseFrom(coded);
        }
    }

    @Test
    void theSourceGraphIsTheOneTheHashesWereRecordedOn() throws Exception {
        assertEquals(
                "01183d1944dc667929273d666443e253b4390a5d35b09fb4754c997a8a0190fb",
                sha(source.toByteArray()),
                "the testkit's timing transformer changed: record every pass's hash again (no version to raise)");
    }

    @Test
    void mhaFusionFp32() throws Exception {
        golden(MhaFusion.of(MhaPrecision.FP32), 1, "a92090eb4adb0ae3c436f21202db6dbcc454b6add76e6709870f776040fc0157");
    }

    @Test
    void mhaFusionFp16() throws Exception {
        golden(MhaFusion.of(MhaPrecision.FP16), 1, "8fe92de34580c70b3afe9709812764c8d7f4e368ec6a6e310230fcca371ec2e3");
    }

    @Test
    void ropeFusion() throws Exception {
        golden(RopeFusion.pass(), 1, "c0dd3f4bb5f08b3b6a9a4eeb9334aacbc5b4abcac7ed1e2abe35075d80c95399");
    }

    @Test
    void weightDequantizationFp32() throws Exception {
        golden(
                WeightDequantization.of(WeightDequantization.ProductPrecision.FP32),
                1,
                "6c7abf4ca58cb9456b811b7222883904f4cac68ea96c2f85dbe10405500dfa97");
    }

    @Test
    void weightDequantizationFp16() throws Exception {
        golden(
                WeightDequantization.of(WeightDequantization.ProductPrecision.FP16),
                1,
                "c7bf588e7dbecaf01ba7d903e5028587fdbee930a466c4bc1514b151bb5d14e0");
    }

    @Test
    void fp32Activations() throws Exception {
        golden(Fp32Activations.pass(), 1, "47b9136ad9584d5a9eeb00832cb6dfcd72525dfc6472c26c61f9f2f2480dcfb3");
    }

    @Test
    void accuracyLevelZero() throws Exception {
        golden(AccuracyLevelZero.pass(), 1, "df164655f1bde3973ded481097796f5d0713039e090b0e42f45b49f308ab0b32");
    }

    /** Recorded on 2026-12-04 when the pass was written (issue #30). */
    @Test
    void loraBranches() throws Exception {
        golden(LoraBranches.pass(), 1, "61b4cfb85b6106a06f2a801f117bd8ace32474a197492d31f4292fd9984967fc");
    }

    /** The runner's order: the same bytes as the rewriters' fixed order before (cpu_tuned=true, fused, dequantized). */
    @Test
    void theRunnerAppliesThePassesInItsOrderWhateverTheyAreGivenIn() throws Exception {
        List<GraphPass> all = List.of(
                AccuracyLevelZero.pass(),
                Fp32Activations.pass(),
                MhaFusion.of(MhaPrecision.FP32),
                WeightDequantization.of(WeightDequantization.ProductPrecision.FP32));
        assertEquals("77d9772fa61af066c5db3206ed6a34f8a5e18634aef63e2a7547390dc5b2a642", runHash(all));
        assertEquals(
                "f27ef0b6706dd38a694e05c63b48ff268dd6374c2ff750e7e5bdbf952fddce77",
                runHash(List.of(AccuracyLevelZero.pass(), Fp32Activations.pass())));
    }

    private static void golden(GraphPass pass, int recordedVersion, String expected) throws Exception {
        String actual = runHash(List.of(pass));
        if (pass.version() != recordedVersion) {
            fail(pass.id() + " is at version " + pass.version() + " but its golden hash was recorded at version "
                    + recordedVersion + ": write the new hash " + actual + " and version " + pass.version() + " here");
        }
        if (!actual.equals(expected)) {
            fail(pass.key() + " writes something else for the same graph (hash " + actual + ", recorded " + expected
                    + "): bump this pass's version (" + pass.getClass().getSimpleName()
                    + ".VERSION), so that graphs derived by the old code are not served as the new form, and write "
                    + "the new hash and version here");
        }
    }

    private static String runHash(List<GraphPass> passes) throws Exception {
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        PassContext.DataSink sink = new PassContext.DataSink() {
            @Override
            public String location() {
                return LOCATION;
            }

            @Override
            public long append(byte[] bytes) {
                long offset = data.size();
                data.write(bytes, 0, bytes.length);
                return offset;
            }

            @Override
            public long size() {
                return data.size();
            }
        };
        PassRunner.Run run =
                PassRunner.run(source, passes, new PassContext(files.graphFile().getParent(), sink));
        return sha(run.model().toByteArray(), data.toByteArray());
    }

    private static String sha(byte[]... parts) throws NoSuchAlgorithmException {
        MessageDigest d = MessageDigest.getInstance("SHA-256");
        for (byte[] p : parts) {
            d.update(p);
        }
        return HexFormat.of().formatHex(d.digest());
    }
}
