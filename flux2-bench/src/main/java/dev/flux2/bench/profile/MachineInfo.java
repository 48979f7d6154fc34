package dev.flux2.bench.profile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The machine a profile ran on (Linux {@code /proc}).
 *
 * @param cpus available processors
 * @param cpuModel {@code model name} from {@code /proc/cpuinfo}
 * @param memoryBytes {@code MemTotal}
 * @param jdk {@code java.vm.name} and {@code java.runtime.version}
 * @param loadAverageAtStart the 1/5/15-minute load averages when read
 */
record MachineInfo(int cpus, String cpuModel, long memoryBytes, String jdk, String loadAverageAtStart) {

    static MachineInfo current() {
        try {
            String model = Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
                    .filter(l -> l.startsWith("model name"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim())
                    .findFirst()
                    .orElse("unknown");
            long mem = Files.readAllLines(Path.of("/proc/meminfo")).stream()
                    .filter(l -> l.startsWith("MemTotal:"))
                    .map(l -> Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024)
                    .findFirst()
                    .orElse(-1L);
            return new MachineInfo(
                    Runtime.getRuntime().availableProcessors(),
                    model,
                    mem,
                    System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"),
                    currentLoadAverage());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read /proc (the profile needs Linux)", e);
        }
    }

    /** @return the first three fields of {@code /proc/loadavg} */
    static String currentLoadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read /proc/loadavg", e);
        }
    }
}
