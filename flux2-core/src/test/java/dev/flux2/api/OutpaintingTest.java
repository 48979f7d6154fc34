package dev.flux2.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import org.junit.jupiter.api.Test;

class OutpaintingTest {
    @Test
    void padsWithTheEdgePixelsAndMasksTheBorder() {
        BufferedImage image = new BufferedImage(32, 16, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < 16; y++) {
            for (int x = 0; x < 32; x++) {
                image.setRGB(x, y, x << 16 | y << 8 | 7);
            }
        }
        Outpainting.Canvas c = Outpainting.pad(image, 16, 0, 32, 16);
        assertEquals(80, c.image().getWidth());
        assertEquals(32, c.image().getHeight());
        assertEquals(80, c.mask().getWidth());
        assertEquals(32, c.mask().getHeight());
        for (int y = 0; y < 32; y++) {
            for (int x = 0; x < 80; x++) {
                boolean original = x >= 16 && x < 48 && y < 16;
                assertEquals(original ? 0 : 255, c.mask().getRaster().getSample(x, y, 0), "mask at " + x + "," + y);
                int sx = Math.min(Math.max(x - 16, 0), 31);
                int sy = Math.min(y, 15);
                assertEquals(sx << 16 | sy << 8 | 7, c.image().getRGB(x, y) & 0xFFFFFF, "pixel at " + x + "," + y);
            }
        }
    }

    @Test
    void sidesMustBeMultiplesOf16AndNotAllZero() {
        BufferedImage image = new BufferedImage(16, 16, BufferedImage.TYPE_INT_RGB);
        InvalidRequestException e =
                assertThrows(InvalidRequestException.class, () -> Outpainting.pad(image, 0, 8, 0, 0));
        assertTrue(e.getMessage().contains("top") && e.getMessage().contains("8"), e.getMessage());
        assertThrows(InvalidRequestException.class, () -> Outpainting.pad(image, -16, 0, 0, 0));
        assertThrows(InvalidRequestException.class, () -> Outpainting.pad(image, 0, 0, 0, 0));
    }
}
