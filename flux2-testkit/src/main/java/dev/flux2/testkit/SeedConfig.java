package dev.flux2.testkit;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * The {@code flux2-config.json} of the MarkShark2 q4 bundle layout as the project first received it (it names the
 * optional fused graph and VAE encoder that the pinned public revision lacks; see {@code docs/bundle-format.md} §6).
 * Tests use it to check that the backend reads a real-world config, not only the ones flux2-testkit writes.
 */
public final class SeedConfig {
    private static final String RESOURCE = "/dev/flux2/testkit/reference/markshark2-flux2-config.json";

    private SeedConfig() {}

    /** @return a fresh, mutable copy of the config tree */
    public static ObjectNode markShark2() {
        try (InputStream in = SeedConfig.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IOException("resource " + RESOURCE + " is missing from flux2-testkit");
            }
            return (ObjectNode) new ObjectMapper().readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the seed config", e);
        }
    }
}
