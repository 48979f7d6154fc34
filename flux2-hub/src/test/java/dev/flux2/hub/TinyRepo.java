package dev.flux2.hub;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;

/** A small repository in a bundle's shape: LFS graphs and shards, regular JSON files, a nested tokenizer, a card. */
final class TinyRepo {
    static final String REPO = "tester/tiny-bundle";
    static final String COMMIT = "0123456789abcdef0123456789abcdef01234567";
    static final String SHARD = "te-00001.onnx_data";
    static final String TOKENIZER = "tokenizer/tokenizer.json";
    /** The files a model needs, sorted (README.md and .gitattributes are left on the hub). */
    static final List<String> FILES = List.of(
            "flux2-config.json", SHARD, "te-manifest.json", "te.onnx", TOKENIZER, "tokenizer/tokenizer_config.json");

    private TinyRepo() {}

    static Path write(Path dir) throws IOException {
        Random random = new Random(11);
        Files.createDirectories(dir.resolve("tokenizer"));
        Files.writeString(dir.resolve("flux2-config.json"), "{\"model_variant\": \"tiny\"}\n");
        Files.writeString(dir.resolve("te-manifest.json"), "[\"" + SHARD + "\"]\n");
        Files.write(dir.resolve("te.onnx"), bytes(random, 5_000));
        Files.write(dir.resolve(SHARD), bytes(random, 400_000));
        StringBuilder vocab = new StringBuilder("{\"vocab\": {");
        for (int i = 0; i < 3000; i++) {
            vocab.append(i == 0 ? "" : ",")
                    .append("\"t")
                    .append(i)
                    .append("\": ")
                    .append(i);
        }
        Files.writeString(dir.resolve(TOKENIZER), vocab.append("}}\n"), StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("tokenizer/tokenizer_config.json"), "{\"pad_token\": \"<|endoftext|>\"}\n");
        Files.writeString(dir.resolve("README.md"), "# tiny\n");
        Files.writeString(dir.resolve(".gitattributes"), "*.onnx_data filter=lfs\n");
        return dir;
    }

    private static byte[] bytes(Random random, int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }
}
