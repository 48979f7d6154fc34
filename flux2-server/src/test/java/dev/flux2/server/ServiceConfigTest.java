package dev.flux2.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/** The config's bounds and names (issue #33): queue and worker maxima, the derived model id, hosts and ports. */
class ServiceConfigTest {
    @Test
    void theQueueWorkersAndConnectionsHaveDocumentedMaxima() {
        IllegalArgumentException queue = assertThrows(
                IllegalArgumentException.class,
                () -> ServiceConfig.builder().queueCapacity(1_000_000_000).build());
        assertTrue(
                queue.getMessage().contains("0..4096") && queue.getMessage().contains("1000000000"),
                queue.getMessage());
        assertThrows(
                IllegalArgumentException.class,
                () -> ServiceConfig.builder().workers(257).build());
        assertThrows(
                IllegalArgumentException.class,
                () -> ServiceConfig.builder().maxConnections(20_000).build());
        ServiceConfig largest = ServiceConfig.builder()
                .workers(ServiceConfig.MAX_WORKERS)
                .queueCapacity(ServiceConfig.MAX_QUEUE_CAPACITY)
                .maxConnections(ServiceConfig.MAX_CONNECTIONS)
                .build();
        assertEquals(4096, largest.queueCapacity());
        assertThrows(
                IllegalArgumentException.class,
                () -> ServiceConfig.builder().bodyBudgetBytes(1000).build(),
                "a budget below one upload");
    }

    @Test
    void theModelIdDoesNotRepeatKlein() {
        assertEquals(
                "flux2-klein-4b-distilled-onnx-webgpu-q4", ServiceConfig.modelId("klein-4b-distilled-onnx-webgpu-q4"));
        assertEquals("flux2-klein-4b", ServiceConfig.modelId("flux.2-klein-4b"));
        assertEquals("flux2-klein", ServiceConfig.modelId("flux.2-klein"));
        assertEquals("flux2-klein-4b-base-onnx", ServiceConfig.modelId("klein-4b-base-onnx"));
        assertEquals("flux2-klein-hlhc-4b", ServiceConfig.modelId("hlhc 4b"));
        assertEquals("flux2-klein-t-denoiser", ServiceConfig.modelId("t+denoiser"));
        assertEquals("flux2-klein-kleinx", ServiceConfig.modelId("kleinx"));
    }

    @Test
    void anUnresolvableHostIsSaidToBeUnresolvable() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> ServiceConfig.builder().host("localhots.invalid").build());
        assertTrue(e.getMessage().contains("'localhots.invalid' cannot be resolved"), e.getMessage());
        assertTrue(!e.getMessage().contains("loopback"), e.getMessage());
    }

    @Test
    void aBusyPortIsNamedWithItsReason() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            InetSocketAddress address = new InetSocketAddress("127.0.0.1", taken.getLocalPort());
            UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> BoundPort.bind(address));
            assertTrue(
                    e.getMessage().contains("cannot listen on 127.0.0.1:" + taken.getLocalPort())
                            && e.getMessage().contains("already in use"),
                    e.getMessage());
            // The same when the service binds itself.
            UncheckedIOException s = assertThrows(
                    UncheckedIOException.class,
                    () -> ImageService.start(
                            (r, c) -> FakeImages.of(r),
                            ServiceConfig.builder().port(taken.getLocalPort()).build()));
            assertTrue(s.getMessage().contains("already in use"), s.getMessage());
        }
        try (BoundPort port = BoundPort.bind(new InetSocketAddress("127.0.0.1", 0))) {
            int bound = port.port();
            // Closed unused, the port is free again.
            port.close();
            try (ServerSocket again = new ServerSocket(bound, 1, InetAddress.getLoopbackAddress())) {
                assertEquals(bound, again.getLocalPort());
            }
        }
    }
}
