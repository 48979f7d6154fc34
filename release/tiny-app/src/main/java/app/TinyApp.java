package app;

import dev.flux2.Flux2Pipeline;
import dev.flux2.api.GenerationRequest;
import dev.flux2.langchain4j.Flux2ImageModel;
import dev.langchain4j.data.image.Image;
import dev.langchain4j.model.output.Response;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.nio.file.Path;
import java.util.Base64;
import javax.imageio.ImageIO;

/**
 * Generates one image through the SDK and the same through the LangChain4j adapter, writes the adapter's PNG and
 * fails unless both have the requested size and the same pixels.
 */
public final class TinyApp {
    private TinyApp() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: TinyApp BUNDLE_DIR OUTPUT.png");
            System.exit(2);
        }
        Path bundle = Path.of(args[0]);
        String prompt = "a red fox in the snow";
        BufferedImage sdk;
        try (Flux2Pipeline pipeline = Flux2Pipeline.builder().model(bundle).build()) {
            sdk = pipeline.generate(GenerationRequest.builder(prompt).size(64, 48).steps(2).seed(42).build())
                    .first()
                    .image();
        }
        BufferedImage adapter;
        try (Flux2ImageModel model = Flux2ImageModel.builder()
                .model(bundle)
                .width(64)
                .height(48)
                .steps(2)
                .seed(42L)
                .build()) {
            Response<Image> response = model.generate(prompt);
            byte[] png = Base64.getDecoder().decode(response.content().base64Data());
            adapter = ImageIO.read(new ByteArrayInputStream(png));
        }
        if (adapter.getWidth() != 64 || adapter.getHeight() != 48) {
            throw new IllegalStateException("expected 64x48, got " + adapter.getWidth() + "x" + adapter.getHeight());
        }
        for (int y = 0; y < 48; y++) {
            for (int x = 0; x < 64; x++) {
                if (sdk.getRGB(x, y) != adapter.getRGB(x, y)) {
                    throw new IllegalStateException("SDK and LangChain4j differ at " + x + "," + y);
                }
            }
        }
        ImageIO.write(adapter, "png", new File(args[1]));
        System.out.println("tiny-app: generated 64x48 through the SDK and LangChain4j, same pixels -> " + args[1]);
    }
}
