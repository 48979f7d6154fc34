package dev.flux2.onnx.runtime;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The NVIDIA GPUs of this machine as the driver's {@code nvidia-smi} reports them: name, total and free memory,
 * compute capability. {@code nvidia-smi} ships with every NVIDIA driver and answers without loading CUDA into this
 * process; ONNX Runtime 1.26's Java API lists no CUDA device with its memory ({@code OrtEnvironment.getEpDevices()}
 * names hardware devices, without memory or compute capability, and only for providers registered as libraries), and
 * the CUDA runtime's own query would load CUDA into the JVM before the provider is chosen. Bounded: the query is
 * given {@value #TIMEOUT_SECONDS} s (a hung driver makes {@code nvidia-smi} hang). Stateless.
 */
public final class CudaDevices {
    /** How long {@code nvidia-smi} may take. */
    static final long TIMEOUT_SECONDS = 10;

    private CudaDevices() {}

    /**
     * One GPU.
     *
     * @param index the CUDA device index (the {@code device_id} option), in the driver's order
     * @param name the product name, for example {@code NVIDIA H200}
     * @param totalBytes the device memory
     * @param freeBytes the memory free now
     * @param computeCapability for example {@code 9.0}
     */
    public record Gpu(int index, String name, long totalBytes, long freeBytes, String computeCapability) {
        /** @return for reports: {@code NVIDIA H200, 139.8 GiB (139.2 GiB free), compute capability 9.0} */
        public String describe() {
            return String.format(
                    Locale.ROOT,
                    "%s, %.1f GiB (%.1f GiB free), compute capability %s",
                    name,
                    totalBytes / (double) (1L << 30),
                    freeBytes / (double) (1L << 30),
                    computeCapability);
        }
    }

    /**
     * The answer of {@code nvidia-smi}.
     *
     * @param gpus the GPUs, empty when none answered
     * @param problem why none answered (no {@code nvidia-smi}, no driver, timeout), empty when the query ran
     */
    public record Query(List<Gpu> gpus, Optional<String> problem) {
        /** Copies. */
        public Query {
            gpus = List.copyOf(gpus);
        }

        /**
         * @param deviceId a device index
         * @return that GPU, if the driver reported it
         */
        public Optional<Gpu> gpu(int deviceId) {
            return gpus.stream().filter(g -> g.index() == deviceId).findFirst();
        }
    }

    /** @return this machine's GPUs, by {@code nvidia-smi} (at most {@value #TIMEOUT_SECONDS} s) */
    public static Query query() {
        List<String> command = List.of(
                "nvidia-smi",
                "--query-gpu=index,name,memory.total,memory.free,compute_cap",
                "--format=csv,noheader,nounits");
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            return new Query(
                    List.of(),
                    Optional.of("nvidia-smi cannot run (" + e.getMessage() + "): no NVIDIA driver"
                            + " installed, or nvidia-smi is not on PATH"));
        }
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(p.getInputStream()));
        try {
            if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return new Query(List.of(), Optional.of("nvidia-smi did not answer in " + TIMEOUT_SECONDS + " s"));
            }
            String text = out.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            if (p.exitValue() != 0) {
                return new Query(
                        List.of(),
                        Optional.of("nvidia-smi failed (exit code " + p.exitValue() + "): "
                                + text.strip().replaceAll("\\s*\\R\\s*", " ")));
            }
            return parse(text);
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            return new Query(List.of(), Optional.of("interrupted while asking nvidia-smi"));
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            p.destroyForcibly();
            return new Query(List.of(), Optional.of("cannot read nvidia-smi's answer: " + e));
        }
    }

    private static String read(InputStream in) {
        try {
            // A bound on what is kept: a few lines per GPU.
            return new String(in.readNBytes(1 << 16), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    /**
     * @param csv {@code nvidia-smi --query-gpu=index,name,memory.total,memory.free,compute_cap
     *     --format=csv,noheader,nounits}'s output (memory in MiB)
     * @return the GPUs; a line that does not parse is the query's problem
     */
    static Query parse(String csv) {
        List<Gpu> gpus = new ArrayList<>();
        for (String line : csv.strip().split("\\R")) {
            if (line.isBlank()) {
                continue;
            }
            String[] f = line.split(",");
            if (f.length != 5) {
                return new Query(gpus, Optional.of("nvidia-smi answered '" + line.strip() + "'"));
            }
            try {
                gpus.add(new Gpu(
                        Integer.parseInt(f[0].trim()),
                        f[1].trim(),
                        Long.parseLong(f[2].trim()) << 20,
                        Long.parseLong(f[3].trim()) << 20,
                        f[4].trim()));
            } catch (NumberFormatException e) {
                return new Query(gpus, Optional.of("nvidia-smi answered '" + line.strip() + "'"));
            }
        }
        return new Query(gpus, gpus.isEmpty() ? Optional.of("nvidia-smi lists no GPU") : Optional.empty());
    }
}
