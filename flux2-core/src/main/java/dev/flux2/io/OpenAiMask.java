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
     * @throws dev.flux2.api.InvalidRequestException when the mask has alpha but no fully transparent pixel: in
     *     OpenAI's convention nothing would be edited (it was reported as "all black", whatever its colour)
     */
    public static BufferedImage toFlux(BufferedImage mask) {
        if (!mask.getColorModel().hasAlpha()) {
            return mask;
        }
        int w = mask.getWidth();
        int h = mask.getHeight();
        BufferedImage out = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
        boolean anyTransparent = false;
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                boolean transparent = (mask.getRGB(x, y) >>> 24) == 0;
                anyTransparent |= transparent;
                out.setRGB(x, y, transparent ? 0xFFFFFF : 0x000000);
            }
        }
        if (!anyTransparent) {
            throw new dev.flux2.api.InvalidRequestException("the mask of " + w + "x" + h + " has an alpha channel"
                    + " but no fully transparent pixel: with alpha, OpenAI's convention applies (the transparent"
                    + " area is edited, whatever the colours), so nothing would be edited; make the area to edit"
                    + " transparent, or send a mask without alpha (white repaints, black keeps)");
        }
        return out;
    }
}
