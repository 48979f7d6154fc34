package dev.flux2.examples.embedding;

import dev.flux2.Flux2Pipeline;
import dev.flux2.api.GenerationRequest;
import java.awt.image.BufferedImage;
import java.io.File;
import java.io.IOException;
import javax.imageio.ImageIO;

/**
 * Image-to-image: the source image is noised to {@code strength} (0 keeps it, 1 ignores it) and denoised towards the
 * prompt; the output has the source's size unless a size is set. Run:
 * {@code java -cp CLASSPATH dev.flux2.examples.embedding.ImageToImageExample MODEL_DIR in.png "a prompt" 0.6 out.png}.
 */
public final class ImageToImageExample {
    private ImageToImageExample() {}

    /**
     * @param args model folder or repo id[@revision], source image, prompt, strength, output PNG
     * @throws IOException when an image cannot be read or written
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 5) {
            System.err.println("usage: ImageToImageExample MODEL_DIR SOURCE.png PROMPT STRENGTH OUTPUT.png");
            System.exit(2);
        }
        BufferedImage source = ImageIO.read(new File(args[1]));
        if (source == null) {
            throw new IOException("not an image this JVM can read: " + args[1]);
        }
        try (Flux2Pipeline pipeline = Flux2Pipeline.builder().model(args[0]).build()) {
            GenerationRequest request = GenerationRequest.builder(args[2])
                    .initImage(source)
                    .strength(Double.parseDouble(args[3]))
                    .seed(42)
                    .build();
            ImageIO.write(pipeline.generate(request).first().image(), "png", new File(args[4]));
        }
    }
}
