package dev.flux2.testkit.timing;

import dev.flux2.testkit.ExternalDataWriter;
import dev.flux2.testkit.ExternalRef;
import dev.flux2.testkit.Fp16;
import dev.flux2.testkit.GraphBuilder;
import dev.flux2.testkit.TensorElementType;
import java.util.List;
import java.util.SplittableRandom;

/**
 * One bias-free linear layer as the real transformer stores it: MatMulNBits with 4-bit asymmetric codes in blocks
 * of 16, fp16 scales (the activation type) and packed uint8 zero points, all in external data (codes in shard 1,
 * scales and zero points in shard 2, as in the synthetic bundle).
 *
 * @param name initializer name prefix
 * @param k input features (a multiple of 16)
 * @param n output features
 * @param block block size (16 as in the seed's export)
 * @param codes packed codes, uint8 [N, K/block, block/2]
 * @param scales fp16 [N·K/block]
 * @param zeroPoints uint8 [N·ceil(K/(2·block))]
 */
record Q4Linear(String name, int k, int n, int block, ExternalRef codes, ExternalRef scales, ExternalRef zeroPoints) {
    /** Mean of (code − zero point)² for independent uniform codes and zero points in 0..15. */
    private static final double CODE_SECOND_MOMENT = 2 * (16.0 * 16.0 - 1) / 12.0;

    /**
     * Writes random codes and zero points and scales of about 1/√(K·E[(c−z)²]), so an output has roughly the
     * magnitude of its normalised input (keeps the fp16 activations finite through the blocks).
     */
    static Q4Linear write(ExternalDataWriter writer, String name, int k, int n, int block, SplittableRandom rnd) {
        if (k % block != 0) {
            throw new IllegalArgumentException(name + ": K must be a multiple of " + block + ", was " + k);
        }
        int blocks = k / block;
        ExternalRef codes = writer.append(0, randomBytes(rnd, (long) n * k / 2));
        float scale = (float) (1.0 / Math.sqrt(k * CODE_SECOND_MOMENT));
        byte[] scaleBytes = new byte[Math.multiplyExact(n, blocks) * 2];
        for (int i = 0; i < scaleBytes.length; i += 2) {
            short h = Fp16.fromFloat(scale * (float) (0.9 + 0.2 * rnd.nextDouble()));
            scaleBytes[i] = (byte) h;
            scaleBytes[i + 1] = (byte) (h >>> 8);
        }
        ExternalRef scales = writer.append(1, scaleBytes);
        ExternalRef zeroPoints = writer.append(1, randomBytes(rnd, (long) n * zeroPointBytesPerColumn(blocks)));
        return new Q4Linear(name, k, n, block, codes, scales, zeroPoints);
    }

    static int zeroPointBytesPerColumn(int blocks) {
        return (blocks + 1) / 2;
    }

    /** @return bytes of the three initializers */
    long bytes() {
        return codes.length() + scales.length() + zeroPoints.length();
    }

    /** Adds the three initializers and a MatMulNBits node over {@code input} (fp16); returns its fp16 output. */
    String apply(GraphBuilder b, String input, int accuracyLevel) {
        int blocks = k / block;
        String codesName = b.external(name + ".qweight", TensorElementType.UINT8, codes, n, blocks, block / 2);
        String scalesName = b.external(name + ".scales", TensorElementType.FLOAT16, scales, (long) n * blocks);
        String zpName = b.external(
                name + ".qzeros", TensorElementType.UINT8, zeroPoints, (long) n * zeroPointBytesPerColumn(blocks));
        return b.msOp(
                "MatMulNBits",
                List.of(input, codesName, scalesName, zpName),
                GraphBuilder.attrInt("K", k),
                GraphBuilder.attrInt("N", n),
                GraphBuilder.attrInt("bits", 4),
                GraphBuilder.attrInt("block_size", block),
                GraphBuilder.attrInt("accuracy_level", accuracyLevel));
    }

    private static byte[] randomBytes(SplittableRandom rnd, long length) {
        byte[] out = new byte[Math.toIntExact(length)];
        int i = 0;
        while (i < out.length) {
            long bits = rnd.nextLong();
            for (int j = 0; j < 8 && i < out.length; j++, bits >>>= 8) {
                out[i++] = (byte) bits;
            }
        }
        return out;
    }
}
