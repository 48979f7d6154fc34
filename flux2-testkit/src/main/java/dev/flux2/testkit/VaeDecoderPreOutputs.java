package dev.flux2.testkit;

/**
 * What {@code vae_decoder_pre} outputs, as floats holding values of the pre graph's type (S = (H/8)(W/8),
 * hd = head dim, Cr = {@link SyntheticDims#RESIDUAL_CHANNELS}).
 *
 * @param residual [Cr][H/8][W/8]
 * @param query [S][hd], already multiplied by hd^-1/4
 * @param keyTransposed [hd][S], already multiplied by hd^-1/4
 * @param value [S][hd]
 */
public record VaeDecoderPreOutputs(float[] residual, float[] query, float[] keyTransposed, float[] value) {}
