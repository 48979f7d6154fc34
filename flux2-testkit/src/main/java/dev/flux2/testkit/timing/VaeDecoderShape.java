package dev.flux2.testkit.timing;

import java.util.List;

/**
 * The channel plan of FLUX.2's VAE decoder (diffusers' {@code AutoencoderKLFlux2} decoder): what
 * {@link FullSizeVaeDecoderGraphs} builds, split as the seed export splits it (docs/bundle-format.md §10).
 *
 * @param latentChannels channels of the unpatchified latent (32; 128 after the 2×2 patchify)
 * @param levelChannels channels per resolution level from full resolution up (128, 256, 512, 512): the decoder
 *     runs them from the last (H/8) to the first (H)
 * @param blocksPerLevel ResNet blocks per level (layers_per_block + 1 = 3)
 * @param groups GroupNorm groups (32)
 */
public record VaeDecoderShape(int latentChannels, List<Integer> levelChannels, int blocksPerLevel, int groups) {
    /** Checks the plan. */
    public VaeDecoderShape {
        levelChannels = List.copyOf(levelChannels);
        if (latentChannels * 4 != 128) {
            throw new IllegalArgumentException(
                    "VaeDecoderShape.latentChannels must be 32 (128 patchified), was " + latentChannels);
        }
        if (levelChannels.size() != 4 || blocksPerLevel < 2 || groups < 1) {
            throw new IllegalArgumentException("VaeDecoderShape: 4 levels, >= 2 blocks per level and >= 1 group,"
                    + " was " + levelChannels + ", " + blocksPerLevel + ", " + groups);
        }
        for (int c : levelChannels) {
            if (c < groups || c % groups != 0) {
                throw new IllegalArgumentException("VaeDecoderShape: every level's channels must be a multiple of "
                        + groups + ", was " + levelChannels);
            }
        }
    }

    /** @return FLUX.2's decoder: 128, 256, 512, 512 channels, 3 ResNet blocks per level, GroupNorm of 32 groups */
    public static VaeDecoderShape flux2() {
        return new VaeDecoderShape(32, List.of(128, 256, 512, 512), 3, 32);
    }

    /** @return channels at H/8: the residual, the mid-block attention's width (the attention chunk's d) */
    public int midChannels() {
        return levelChannels.get(3);
    }

    /** @param level 0 (H) … 3 (H/8) @return its channels */
    public int channels(int level) {
        return levelChannels.get(level);
    }
}
