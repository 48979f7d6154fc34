package dev.flux2.examples.embedding;

import dev.flux2.Flux2Pipeline;
import dev.flux2.api.GenerationRequest;
import java.awt.image.BufferedImage;
import java.io.File;
import java.io.IOException;
import javax.imageio.ImageIO;

/**
 * The smallest complete program: load a bundle, generate one image, save it. This is the program the README
 * shows. Run: {@code java -cp flux2-cli/target/flux2.jar:flux2-examples/target/flux2-examples-0.1.0-SNAPSHOT.jar
 * dev.flux2.examples.embedding.MinimalExample MODEL_DIR "a prompt" out.png} (the CLI's jar holds the libraries; see
 * the package comment).
 */
public final class MinimalExample {
    private MinimalExample() {}

    /**
     * @param args model folder or repo id[@revision], prompt, output PNG
     * @throws IOException when the PNG cannot be written
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 3) {
            System.err.println("usage: MinimalExample MODEL_DIR PROMPT OUTPUT.png");
            System.exit(2);
        }
        try (Flux2Pipeline pipeline = Flux2Pipeline.builder().model(args[0]).build()) {
            GenerationRequest request =
                    GenerationRequest.builder(args[1]).size(512, 512).seed(42).build();
            BufferedImage image = pipeline.generate(request).first().image();
            ImageIO.write(image, "png", new File(args[2]));
        }
    }
}
