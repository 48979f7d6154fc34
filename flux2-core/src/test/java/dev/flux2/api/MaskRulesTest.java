package dev.flux2.api;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.image.InpaintMask;
import dev.flux2.io.OpenAiMask;
import java.awt.image.BufferedImage;
import org.junit.jupiter.api.Test;

/**
 * Issue #33: an all-black mask was refused only after the model loaded, and an opaque white mask with alpha was
 * called "all black". The request's build refuses a mask no resize can make white; OpenAI's convention names an
 * opaque mask for what it is.
 */
class MaskRulesTest {
    private static BufferedImage filled(int type, int argb) {
        BufferedImage img = new BufferedImage(48, 32, type);
        for (int y = 0; y < 32; y++) {
            for (int x = 0; x < 48; x++) {
                img.setRGB(x, y, argb);
            }
        }
        return img;
    }

    private static GenerationRequest.Builder inpaint(BufferedImage mask) {
        return GenerationRequest.builder("p")
                .initImage(filled(BufferedImage.TYPE_INT_RGB, 0x808080))
                .mask(mask);
    }

    @Test
    void anAllBlackMaskIsRefusedWhenTheRequestIsBuilt() {
        InvalidRequestException e = assertThrows(
                InvalidRequestException.class,
                () -> inpaint(filled(BufferedImage.TYPE_INT_RGB, 0x000000)).build());
        assertTrue(e.getMessage().startsWith("the mask of 48x32 is all black"), e.getMessage());
        // Dark grey below 64 in every channel cannot reach grey level 128 through any resize.
        assertThrows(
                InvalidRequestException.class,
                () -> inpaint(filled(BufferedImage.TYPE_INT_RGB, 0x3F3F3F)).build());
    }

    @Test
    void aMaskThatMayBecomeWhiteIsLeftToTheWorkingSizeCheck() {
        BufferedImage one = filled(BufferedImage.TYPE_INT_RGB, 0);
        one.setRGB(5, 5, 0xFFFFFF);
        assertDoesNotThrow(() -> inpaint(one).build());
        BufferedImage grey = filled(BufferedImage.TYPE_INT_RGB, 0x404040);
        GenerationRequest built = inpaint(grey).build();
        // Grey 64 is still black after binarizing, found where the exact rule applies, by the same words.
        InvalidRequestException late = assertThrows(
                InvalidRequestException.class,
                () -> InpaintMask.binarized(built.mask().orElseThrow(), 48, 32));
        assertTrue(late.getMessage().contains("is all black"), late.getMessage());
    }

    @Test
    void aMaskWithAlphaIsCheckedAfterItsConversion() {
        // Transparent black (edit) over opaque black (keep): OpenAI's usual mask, black in every colour channel.
        BufferedImage openAi = filled(BufferedImage.TYPE_INT_ARGB, 0xFF000000);
        openAi.setRGB(1, 1, 0x00000000);
        GenerationRequest built = assertDoesNotThrow(() -> inpaint(openAi).build());
        BufferedImage flux = OpenAiMask.toFlux(built.mask().orElseThrow());
        assertEquals(0xFFFFFF, flux.getRGB(1, 1) & 0xFFFFFF);
        assertEquals(0, flux.getRGB(2, 2) & 0xFFFFFF);
    }

    @Test
    void anOpaqueMaskWithAlphaSaysNothingWouldBeEditedNotAllBlack() {
        InvalidRequestException e = assertThrows(
                InvalidRequestException.class,
                () -> OpenAiMask.toFlux(filled(BufferedImage.TYPE_INT_ARGB, 0xFFFFFFFF)));
        assertTrue(e.getMessage().contains("no fully transparent pixel"), e.getMessage());
        assertFalse(e.getMessage().contains("all black"), e.getMessage());
    }
}
