package dev.flux2.testkit;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.imageio.ImageIO;
import javax.imageio.ImageReader;
import javax.imageio.metadata.IIOMetadata;
import javax.imageio.stream.ImageInputStream;
import org.w3c.dom.NamedNodeMap;
import org.w3c.dom.Node;

/**
 * The text chunks of a PNG, read through ImageIO's native PNG metadata tree (test helper of the CLI and server tests).
 *
 * @param tEXt keyword → value of the Latin-1 chunks
 * @param iTXt keyword → text of the UTF-8 chunks
 */
public record PngText(Map<String, String> tEXt, Map<String, String> iTXt) {
    /**
     * @param png a PNG file
     * @return its text chunks
     * @throws IOException when it cannot be read
     */
    public static PngText read(Path png) throws IOException {
        Map<String, String> t = new LinkedHashMap<>();
        Map<String, String> i = new LinkedHashMap<>();
        try (ImageInputStream in = ImageIO.createImageInputStream(png.toFile())) {
            ImageReader reader = ImageIO.getImageReaders(in).next();
            try {
                reader.setInput(in);
                IIOMetadata metadata = reader.getImageMetadata(0);
                Node root = metadata.getAsTree("javax_imageio_png_1.0");
                for (Node chunk = root.getFirstChild(); chunk != null; chunk = chunk.getNextSibling()) {
                    for (Node e = chunk.getFirstChild(); e != null; e = e.getNextSibling()) {
                        NamedNodeMap a = e.getAttributes();
                        if ("tEXtEntry".equals(e.getNodeName())) {
                            t.put(
                                    a.getNamedItem("keyword").getNodeValue(),
                                    a.getNamedItem("value").getNodeValue());
                        } else if ("iTXtEntry".equals(e.getNodeName())) {
                            i.put(
                                    a.getNamedItem("keyword").getNodeValue(),
                                    a.getNamedItem("text").getNodeValue());
                        }
                    }
                }
            } finally {
                reader.dispose();
            }
        }
        return new PngText(t, i);
    }
}
