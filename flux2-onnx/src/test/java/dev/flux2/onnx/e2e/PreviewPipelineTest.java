package dev.flux2.onnx.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.Flux2Pipeline;
import dev.flux2.api.GenerationControls;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.GenerationResult;
import dev.flux2.api.MemoryPolicy;
import dev.flux2.api.Preview;
import dev.flux2.api.PreviewOptions;
import dev.flux2.testkit.FusedConvention;
import dev.flux2.testkit.SyntheticBundle;
import dev.flux2.testkit.SyntheticBundleSpec;
import dev.flux2.testkit.SyntheticBundleWriter;
import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Live previews on the ONNX backend: under both memory policies a VAE preview decodes in the middle of denoising
 * (under SEQUENTIAL beside the transformer's session) and the final image stays bit for bit the one without previews;
 * the linear projection fitted to the synthetic VAE decoder approximates its decode; a bundle with a fused graph runs
 * per step when previews are asked, giving the {@code fused=off} image.
 */
class PreviewPipelineTest {
    private static final String PROMPT = "a red fox in the snow";

    @TempDir
    static Path root;

    private static SyntheticBundle plain;
    private static SyntheticBundle fused;

    @BeforeAll
    static void writeBundles() {
        plain = SyntheticBundleWriter.write(SyntheticBundleSpec.builder().build(), root.resolve("plain"));
        fused = SyntheticBundleWriter.write(
                SyntheticBundleSpec.builder().fused(FusedConvention.ENGINE).build(), root.resolve("fused"));
    }

    private static GenerationRequest request() {
        return GenerationRequest.builder(PROMPT).seed(42).size(64, 48).steps(4).build();
    }

    private static int[] rgb(BufferedImage image) {
        return image.getRGB(0, 0, image.getWidth(), image.getHeight(), null, 0, image.getWidth());
    }

    @Test
    void previewsKeepTheImageBitForBitUnderBothPolicies() {
        for (MemoryPolicy policy : List.of(MemoryPolicy.SEQUENTIAL, MemoryPolicy.RESIDENT)) {
            try (Flux2Pipeline p = Flux2Pipeline.builder()
                    .model(plain.directory())
                    .memoryPolicy(policy)
                    .build()) {
                GenerationResult plainRun = p.generate(request());
                List<Preview> vae = new ArrayList<>();
                GenerationResult vaeRun =
                        p.generate(request(), GenerationControls.none().withPreviews(PreviewOptions.vae(1), vae::add));
                List<Preview> linear = new ArrayList<>();
                GenerationResult linearRun = p.generate(
                        request(), GenerationControls.none().withPreviews(PreviewOptions.linear(1), linear::add));
                assertArrayEquals(
                        rgb(plainRun.first().image()), rgb(vaeRun.first().image()), policy + " vae");
                assertArrayEquals(
                        rgb(plainRun.first().image()), rgb(linearRun.first().image()), policy + " linear");
                assertEquals(List.of(1, 2, 3), vae.stream().map(Preview::step).toList());
                assertEquals(64, vae.get(0).image().getWidth());
                assertEquals(8, linear.get(0).image().getWidth());
                assertEquals(6, linear.get(0).image().getHeight());
                // the last preview (x̂₀ after step 3 of 4) is close to the final image on this bundle
                assertTrue(
                        meanAbsDifference(vae.get(2).image(), plainRun.first().image()) < 40,
                        policy + ": "
                                + meanAbsDifference(
                                        vae.get(2).image(), plainRun.first().image()));
                // the linear preview follows the exact one at block level better than a flat grey would
                for (int k = 0; k < 3; k++) {
                    double linearError =
                            blockError(linear.get(k).image(), vae.get(k).image());
                    double flatError =
                            blockError(flat(vae.get(k).image()), vae.get(k).image());
                    assertTrue(
                            linearError < flatError,
                            policy + " step " + (k + 1) + ": linear " + linearError + ", flat " + flatError);
                }
            }
        }
    }

    @Test
    void previewsRunAFusedBundlePerStep() {
        BufferedImage fusedOff;
        try (Flux2Pipeline p = Flux2Pipeline.builder()
                .model(fused.directory())
                .backendOption("fused", "off")
                .build()) {
            fusedOff = p.generate(request()).first().image();
        }
        try (Flux2Pipeline p = Flux2Pipeline.builder().model(fused.directory()).build()) {
            assertTrue(p.generate(request()).first().metadata().fused(), "without previews the fused graph runs");
            List<Preview> previews = new ArrayList<>();
            GenerationResult r = p.generate(
                    request(), GenerationControls.none().withPreviews(PreviewOptions.linear(1), previews::add));
            assertFalse(r.first().metadata().fused());
            assertEquals(3, previews.size());
            assertArrayEquals(rgb(fusedOff), rgb(r.first().image()));
        }
    }

    private static double meanAbsDifference(BufferedImage a, BufferedImage b) {
        double sum = 0;
        for (int y = 0; y < a.getHeight(); y++) {
            for (int x = 0; x < a.getWidth(); x++) {
                int p = a.getRGB(x, y);
                int q = b.getRGB(x, y);
                for (int c = 0; c < 3; c++) {
                    sum += Math.abs(((p >> (8 * c)) & 0xff) - ((q >> (8 * c)) & 0xff));
                }
            }
        }
        return sum / (3.0 * a.getWidth() * a.getHeight());
    }

    /** Mean absolute difference (0..255) between a W/8 image and the 8×8 block means of a full-size one. */
    private static double blockError(BufferedImage small, BufferedImage full) {
        double sum = 0;
        for (int y = 0; y < small.getHeight(); y++) {
            for (int x = 0; x < small.getWidth(); x++) {
                int p = small.getRGB(x, y);
                for (int c = 0; c < 3; c++) {
                    double mean = 0;
                    for (int dy = 0; dy < 8; dy++) {
                        for (int dx = 0; dx < 8; dx++) {
                            mean += (full.getRGB(8 * x + dx, 8 * y + dy) >> (8 * c)) & 0xff;
                        }
                    }
                    sum += Math.abs(((p >> (8 * c)) & 0xff) - mean / 64);
                }
            }
        }
        return sum / (3.0 * small.getWidth() * small.getHeight());
    }

    private static BufferedImage flat(BufferedImage full) {
        long[] sum = new long[3];
        for (int y = 0; y < full.getHeight(); y++) {
            for (int x = 0; x < full.getWidth(); x++) {
                for (int c = 0; c < 3; c++) {
                    sum[c] += (full.getRGB(x, y) >> (8 * c)) & 0xff;
                }
            }
        }
        long n = (long) full.getWidth() * full.getHeight();
        int rgb = (int) (sum[2] / n) << 16 | (int) (sum[1] / n) << 8 | (int) (sum[0] / n);
        BufferedImage out = new BufferedImage(full.getWidth() / 8, full.getHeight() / 8, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < out.getHeight(); y++) {
            for (int x = 0; x < out.getWidth(); x++) {
                out.setRGB(x, y, rgb);
            }
        }
        return out;
    }
}
