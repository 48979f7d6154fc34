package dev.flux2.pipeline;

import dev.flux2.api.ModelInfo;
import dev.flux2.spi.LatentGrid;
import dev.flux2.spi.PixelTensor;
import dev.flux2.spi.TokenizedPrompt;
import java.util.Properties;

/**
 * A fake FLUX.2 "model": its configuration plus closed-form, pure-Java stand-ins for the tokenizer, text encoder,
 * transformer and VAE. Tests compute expected results by calling these functions in their own re-implementation
 * of the sampler, never through the engine.
 *
 * @param variant the variant label
 * @param distilled whether guidance is ignored
 * @param defaultSteps default steps
 * @param defaultGuidance default guidance
 * @param defaultWidth default width
 * @param defaultHeight default height
 * @param textLength text sequence length
 * @param imageInput whether the fake has a VAE encoder
 * @param fusedSteps fused graph step count (0 = none)
 * @param fusedAvailable whether the fused graph says it can run
 */
public record FakeModel(
        String variant,
        boolean distilled,
        int defaultSteps,
        float defaultGuidance,
        int defaultWidth,
        int defaultHeight,
        int textLength,
        boolean imageInput,
        int fusedSteps,
        boolean fusedAvailable) {

    /** Prefix and suffix ids standing in for the chat template. */
    static final long PREFIX_ID = 7;

    static final long SUFFIX_ID = 9;

    /** @return a distilled 4-step model with a working fused graph, 64x48 default, image input */
    public static FakeModel distilledModel() {
        return new FakeModel("fake-distilled", true, 4, 1f, 64, 48, 32, true, 4, true);
    }

    /** @return a base model: 3 steps, CFG 4, no fused graph */
    public static FakeModel baseModel() {
        return new FakeModel("fake-base", false, 3, 4f, 64, 48, 32, true, 0, false);
    }

    /** @param props keys of the record (missing keys keep the distilled defaults) @return the model */
    public static FakeModel fromProperties(Properties props) {
        FakeModel d = distilledModel();
        return new FakeModel(
                props.getProperty("variant", d.variant),
                Boolean.parseBoolean(props.getProperty("distilled", String.valueOf(d.distilled))),
                Integer.parseInt(props.getProperty("defaultSteps", String.valueOf(d.defaultSteps))),
                Float.parseFloat(props.getProperty("defaultGuidance", String.valueOf(d.defaultGuidance))),
                Integer.parseInt(props.getProperty("defaultWidth", String.valueOf(d.defaultWidth))),
                Integer.parseInt(props.getProperty("defaultHeight", String.valueOf(d.defaultHeight))),
                Integer.parseInt(props.getProperty("textLength", String.valueOf(d.textLength))),
                Boolean.parseBoolean(props.getProperty("imageInput", String.valueOf(d.imageInput))),
                Integer.parseInt(props.getProperty("fusedSteps", String.valueOf(d.fusedSteps))),
                Boolean.parseBoolean(props.getProperty("fusedAvailable", String.valueOf(d.fusedAvailable))));
    }

    /** @return a copy with the given fused availability */
    public FakeModel withFusedAvailable(boolean available) {
        return new FakeModel(
                variant,
                distilled,
                defaultSteps,
                defaultGuidance,
                defaultWidth,
                defaultHeight,
                textLength,
                imageInput,
                fusedSteps,
                available);
    }

    /** @return a copy without VAE encoder */
    public FakeModel withoutImageInput() {
        return new FakeModel(
                variant,
                distilled,
                defaultSteps,
                defaultGuidance,
                defaultWidth,
                defaultHeight,
                textLength,
                false,
                fusedSteps,
                fusedAvailable);
    }

    /** @return a copy with the given fused step count */
    public FakeModel withFusedSteps(int steps) {
        return new FakeModel(
                variant,
                distilled,
                defaultSteps,
                defaultGuidance,
                defaultWidth,
                defaultHeight,
                textLength,
                imageInput,
                steps,
                fusedAvailable);
    }

    /** @return the model info the fake backend reports */
    public ModelInfo info() {
        return new ModelInfo(
                variant,
                distilled,
                defaultSteps,
                defaultGuidance,
                defaultWidth,
                defaultHeight,
                textLength,
                imageInput,
                fusedSteps);
    }

    /** Fake tokenizer: prefix, one id per code point, suffix; right truncation and zero padding to textLength. */
    public TokenizedPrompt tokenize(String prompt) {
        int[] cps = prompt.codePoints().toArray();
        int full = cps.length + 2;
        long[] ids = new long[textLength];
        long[] mask = new long[textLength];
        for (int j = 0; j < Math.min(full, textLength); j++) {
            ids[j] = j == 0 ? PREFIX_ID : j == full - 1 ? SUFFIX_ID : cps[j - 1];
            mask[j] = 1;
        }
        int real = Math.min(full, textLength);
        return new TokenizedPrompt(ids, mask, real, Math.max(0, full - textLength));
    }

    /** Fake text encoder: one scalar per prompt. */
    public static float textScalar(TokenizedPrompt tokens) {
        long sum = 0;
        for (int j = 0; j < tokens.inputIds().length; j++) {
            if (tokens.attentionMask()[j] == 1) {
                sum += (tokens.inputIds()[j] % 101) * (j + 1);
            }
        }
        return (sum % 1000) / 1000f - 0.5f;
    }

    /**
     * Fake transformer: a closed-form velocity for the first N = out.length/128 tokens.
     *
     * @param x N·128 latent tokens
     * @param sigma the timestep
     * @param ids position ids of all tokens (noise first)
     * @param referenceTokens the clean reference tokens (may be empty)
     * @param text the text scalar
     * @param out receives N·128 values
     */
    public static void velocity(float[] x, float sigma, float[] ids, float[] referenceTokens, float text, float[] out) {
        float referenceMean = 0f;
        for (float v : referenceTokens) {
            referenceMean += v;
        }
        if (referenceTokens.length > 0) {
            referenceMean /= referenceTokens.length;
        }
        int n = out.length / 128;
        for (int k = 0; k < n; k++) {
            float idTerm = 0.05f * ids[4 * k] + 0.01f * ids[4 * k + 1] - 0.02f * ids[4 * k + 2];
            for (int f = 0; f < 128; f++) {
                int i = k * 128 + f;
                out[i] = 0.5f * x[i] - 0.3f * sigma + idTerm + text + 0.1f * referenceMean + 0.001f * f;
            }
        }
    }

    /** Fake VAE encoder: block means of the RGB planes plus a per-channel offset, [128, H/16, W/16]. */
    public static LatentGrid encode(PixelTensor pixels) {
        int gh = pixels.height() / 16;
        int gw = pixels.width() / 16;
        float[] plane = new float[3 * gh * gw];
        for (int c = 0; c < 3; c++) {
            for (int y = 0; y < gh * 16; y++) {
                for (int x = 0; x < gw * 16; x++) {
                    plane[(c * gh + y / 16) * gw + x / 16] +=
                            pixels.data()[(c * pixels.height() + y) * pixels.width() + x] / 256f;
                }
            }
        }
        float[] data = new float[128 * gh * gw];
        for (int f = 0; f < 128; f++) {
            for (int i = 0; i < gh * gw; i++) {
                data[f * gh * gw + i] = plane[(f % 3) * gh * gw + i] + 0.01f * (f % 7) - 0.02f * (f / 7 % 5);
            }
        }
        return new LatentGrid(data, 128, gw, gh);
    }

    /** Fake VAE decoder: each pixel is tanh of one latent feature of its token, [3, 16·gh, 16·gw]. */
    public static PixelTensor decode(LatentGrid latent) {
        int h = latent.height() * 16;
        int w = latent.width() * 16;
        float[] data = new float[3 * h * w];
        for (int c = 0; c < 3; c++) {
            for (int y = 0; y < h; y++) {
                for (int x = 0; x < w; x++) {
                    int f = (c * 37 + (y % 16) * 5 + (x % 16)) % 128;
                    data[(c * h + y) * w + x] = (float) Math.tanh(latent.get(f, y / 16, x / 16));
                }
            }
        }
        return new PixelTensor(data, w, h);
    }
}
