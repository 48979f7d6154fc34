package dev.flux2.io;

import java.awt.image.BufferedImage;

/**
 * OpenAI's mask convention to FLUX.2's (diffusers'): OpenAI marks the area to edit with fully transparent pixels
 * (alpha 0), FLUX.2 with white. A mask with alpha becomes white where alpha is 0 and black elsewhere; a mask
 * without alpha is taken as is (white repaints), so diffusers-style masks work too. The one home of this rule for
 * the server's {@code /v1/images/edits} and the LangChain4j adapter's {@code edit(image, mask, prompt)}.
 */
public final class OpenAiMask {
    private OpenAiMask() {}

    /**
     * @param mask a mask in OpenAI's convention (transparent repaints) or FLUX.2's (white repaints)
     * @return the mask in FLUX.2's convention (white repaints, black keeps)
     */
    public static BufferedImage toFlux(BufferedImage mask) {
        if (!mask.getColorModel().hasAlpha()) {
            return mask;
        }
        int w = mask.getWidth();
        int h = mask.getHeight();
        BufferedImage out = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                out.setRGB(x, y, (mask.getRGB(x, y) >>> 24) == 0 ? 0xFFFFFF : 0x000000);
            }
        }
        return out;
    }
}
