package dev.flux2.testkit.timing;

import java.nio.file.Path;
import java.util.Locale;

/**
 * Writes a full-size synthetic bundle ({@link FullSizeBundleSpec}: about 5.3 GB) to a folder, for whole-image timing on
 * a GPU machine; never in CI.
 *
 * <pre>java -Xmx8g -cp flux2-testkit.jar:flux2.jar dev.flux2.testkit.timing.FullSizeBundleMain DIR [--size WxH] \
 *     [--blocks D+S]</pre>
 */
public final class FullSizeBundleMain {
    private FullSizeBundleMain() {}

    /**
     * @param args the folder, then {@code --size WxH} (config default size, 512x512) and {@code --blocks D+S} (the
     *     transformer's double + single blocks, 5+20)
     */
    public static void main(String[] args) {
        if (args.length < 1 || args[0].startsWith("-")) {
            System.err.println("usage: FullSizeBundleMain DIR [--size WxH] [--blocks D+S]");
            System.exit(2);
        }
        FullSizeBundleSpec.Builder spec = FullSizeBundleSpec.builder();
        for (int i = 1; i < args.length; i++) {
            switch (args[i]) {
                case "--size" -> {
                    String[] wh = args[++i].toLowerCase(Locale.ROOT).split("x");
                    spec.defaultSize(Integer.parseInt(wh[0]), Integer.parseInt(wh[1]));
                }
                case "--blocks" -> {
                    String[] ds = args[++i].split("\\+");
                    spec.transformer(TimingTransformerSpec.builder()
                            .blocks(Integer.parseInt(ds[0]), Integer.parseInt(ds[1]))
                            .build());
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        long t0 = System.nanoTime();
        FullSizeBundle bundle = FullSizeBundleWriter.write(spec.build(), Path.of(args[0]));
        System.out.printf(
                Locale.ROOT,
                "wrote full-size bundle to %s: %d MiB, %d text-encoder MatMulNBits, in %.1f s (%s)%n",
                bundle.directory().toAbsolutePath(),
                bundle.bytes() >> 20,
                bundle.textEncoderLinears(),
                (System.nanoTime() - t0) / 1e9,
                bundle.spec());
    }
}
