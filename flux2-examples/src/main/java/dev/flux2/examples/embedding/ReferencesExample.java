package dev.flux2.examples.embedding;

import dev.flux2.Flux2Pipeline;
import dev.flux2.api.GenerationRequest;
import java.awt.image.BufferedImage;
import java.io.File;
import java.io.IOException;
import javax.imageio.ImageIO;

/**
 * Reference images: FLUX.2 attends to each reference while it generates (a subject, a style, a layout to keep),
 * without starting from it as image-to-image does. Run:
 * {@code java -cp CLASSPATH dev.flux2.examples.embedding.ReferencesExample MODEL_DIR "a prompt" out.png ref1.png [ref2.png…]}.
 */
public final class ReferencesExample {
    private ReferencesExample() {}

    /**
     * @param args model folder or repo id[@revision], prompt, output PNG, one or more reference images
     * @throws IOException when an image cannot be read or written
     */
    public static void main(String[] args) throws IOException {
        if (args.length < 4) {
            System.err.println("usage: ReferencesExample MODEL_DIR PROMPT OUTPUT.png REFERENCE.png [REFERENCE.png...]");
            System.exit(2);
        }
        // The model's default size (1024² for FLUX.2 [klein]); references of any size are resized for the model.
        GenerationRequest.Builder request = GenerationRequest.builder(args[1]).seed(42);
        for (int i = 3; i < args.length; i++) {
            BufferedImage reference = ImageIO.read(new File(args[i]));
            if (reference == null) {
                throw new IOException("not an image this JVM can read: " + args[i]);
            }
            request.addReferenceImage(reference);
        }
        try (Flux2Pipeline pipeline = Flux2Pipeline.builder().model(args[0]).build()) {
            ImageIO.write(pipeline.generate(request.build()).first().image(), "png", new File(args[2]));
        }
    }
}
