/**
 * Test support (not shipped at runtime): writes miniature synthetic FLUX.2 ONNX bundles and the realistic-width
 * timing bundle, and computes their expected outputs independently of the backend.
 */
@SuppressWarnings({"module", "requires-automatic", "requires-transitive-automatic"})
module dev.flux2.testkit {
    requires transitive com.fasterxml.jackson.databind; // JsonNode/ObjectNode in SeedConfig and TokenizerFixture
    requires transitive org.tribuo.util.onnx; // the ONNX protobuf classes in GraphBuilder's API
    requires com.google.protobuf;
    requires java.desktop; // PngText reads PNG text chunks through ImageIO
    requires jdk.httpserver; // FakeHub, the loopback Hugging Face hub
    requires org.slf4j;
    requires com.tngtech.archunit; // ArchitectureRules

    exports dev.flux2.testkit;
    exports dev.flux2.testkit.timing;
    exports dev.flux2.testkit.arch;
}
