package dev.flux2.testkit;

import dev.flux2.testkit.timing.TimingBundle;
import dev.flux2.testkit.timing.TimingBundleSpec;
import dev.flux2.testkit.timing.TimingBundleWriter;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Writes a miniature synthetic bundle to a folder, so that the CLI and the API can be tried without the 5 GB
 * download (the images are abstract patterns, not FLUX.2 output). With {@code --timing} it writes a timing bundle
 * instead ({@link TimingBundleWriter}: the realistic-width transformer with 1 + 1 blocks), for throughput
 * measurements.
 *
 * <pre>
 * mvn -q -pl flux2-testkit compile exec:java -Dexec.mainClass=dev.flux2.testkit.SyntheticBundleMain \
 *     -Dexec.args="target/demo-bundle --size 256x256 --fused engine"
 * </pre>
 */
public final class SyntheticBundleMain {
    private SyntheticBundleMain() {}

    /**
     * @param args {@code DIR [--hlhc] [--size WxH] [--fused none|engine|listed] [--no-vae-encoder] [--base]}, or
     *     {@code DIR --timing [--size WxH]}; {@code --hlhc} writes hlhc's layout (no flux2-config.json, its names,
     *     fp32; {@link ExportLayout#HLHC})
     * @throws Exception when the bundle cannot be written
     */
    public static void main(String[] args) throws Exception {
        if (args.length < 1 || args[0].startsWith("-")) {
            System.err.println("usage: SyntheticBundleMain DIR [--hlhc] [--size WxH] [--fused none|engine|listed]"
                    + " [--no-vae-encoder] [--base] | DIR --timing [--size WxH]");
            System.exit(2);
        }
        SyntheticBundleSpec.Builder spec = SyntheticBundleSpec.builder();
        TimingBundleSpec.Builder timing = TimingBundleSpec.builder();
        boolean writeTiming = false;
        for (int i = 1; i < args.length; i++) {
            switch (args[i]) {
                case "--size" -> {
                    String[] wh = args[++i].toLowerCase(Locale.ROOT).split("x");
                    spec.defaultSize(Integer.parseInt(wh[0]), Integer.parseInt(wh[1]));
                    timing.defaultSize(Integer.parseInt(wh[0]), Integer.parseInt(wh[1]));
                }
                case "--timing" -> writeTiming = true;
                case "--fused" -> spec.fused(FusedConvention.valueOf(args[++i].toUpperCase(Locale.ROOT)));
                case "--no-vae-encoder" -> spec.vaeEncoder(false);
                case "--hlhc" -> spec.hlhcLayout();
                case "--base" -> spec.distilled(false);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (writeTiming) {
            TimingBundle bundle = TimingBundleWriter.write(timing.build(), Path.of(args[0]));
            System.out.println(
                    "wrote timing bundle to " + bundle.directory().toAbsolutePath() + " (" + bundle.spec() + ")");
            return;
        }
        SyntheticBundle bundle = SyntheticBundleWriter.write(spec.build(), Path.of(args[0]));
        System.out.println("wrote synthetic bundle to " + bundle.directory().toAbsolutePath());
    }
}
