package dev.flux2.onnx.memory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * The memory limit and usage of the control group the process runs in, for cgroup v2 ({@code memory.max},
 * {@code memory.current}) and v1 ({@code memory.limit_in_bytes}, {@code memory.usage_in_bytes}).
 *
 * <p>The group's path comes from {@code /proc/self/cgroup} (v2: the {@code 0::/path} line; v1: the line whose
 * controllers include {@code memory}). The limit is the smallest one set on that group or any of its ancestors
 * (a parent's limit bounds its children); where the group's folder is not visible (a container that mounts its own
 * group at the root), the root files are read. {@code max} (v2) and v1's "no limit" value (about 2<sup>63</sup>,
 * rounded to the page size) mean no limit. Immutable; the file system roots are injectable for tests.
 *
 * @param limitBytes the effective limit, empty when none is set or no cgroup file is readable
 * @param usageBytes the group's current usage, empty when unknown
 * @param version 2, 1, or 0 when no cgroup memory controller was found
 */
record CgroupMemory(OptionalLong limitBytes, OptionalLong usageBytes, int version) {
    /** v1 reports "no limit" as a value near Long.MAX_VALUE; anything above 2^60 bytes is treated as none. */
    static final long NO_LIMIT_THRESHOLD = 1L << 60;

    /** No cgroup information. */
    static final CgroupMemory NONE = new CgroupMemory(OptionalLong.empty(), OptionalLong.empty(), 0);

    /** @return the cgroup memory of this process, read from {@code /proc/self/cgroup} and {@code /sys/fs/cgroup} */
    public static CgroupMemory current() {
        return read(Path.of("/proc/self/cgroup"), Path.of("/sys/fs/cgroup"));
    }

    /**
     * @param procSelfCgroup the {@code /proc/self/cgroup} file
     * @param cgroupRoot where the cgroup file system is mounted ({@code /sys/fs/cgroup})
     * @return what could be read; {@link #NONE} when nothing could
     */
    static CgroupMemory read(Path procSelfCgroup, Path cgroupRoot) {
        String membership;
        try {
            membership = Files.readString(procSelfCgroup, StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            return NONE;
        }
        String v1Path = null;
        String v2Path = null;
        for (String line : membership.split("\n")) {
            String[] parts = line.trim().split(":", 3);
            if (parts.length != 3) {
                continue;
            }
            if (parts[0].equals("0") && parts[1].isEmpty()) {
                v2Path = parts[2];
            } else if (List.of(parts[1].split(",")).contains("memory")) {
                v1Path = parts[2];
            }
        }
        if (v1Path != null) {
            Path base = cgroupRoot.resolve("memory");
            CgroupMemory v1 = limits(base, v1Path, "memory.limit_in_bytes", "memory.usage_in_bytes", 1);
            if (v1 != NONE) {
                return v1;
            }
        }
        if (v2Path != null) {
            return limits(cgroupRoot, v2Path, "memory.max", "memory.current", 2);
        }
        return NONE;
    }

    private static CgroupMemory limits(Path base, String groupPath, String limitFile, String usageFile, int version) {
        List<Path> folders = new ArrayList<>();
        Path group = base;
        for (String part : groupPath.split("/")) {
            if (!part.isEmpty() && !part.equals("..") && !part.equals(".")) {
                group = group.resolve(part);
            }
        }
        for (Path p = group; p != null && p.startsWith(base); p = p.getParent()) {
            folders.add(p);
        }
        OptionalLong limit = OptionalLong.empty();
        OptionalLong usage = OptionalLong.empty();
        boolean found = false;
        for (Path folder : folders) {
            Path limitPath = folder.resolve(limitFile);
            if (!Files.isRegularFile(limitPath)) {
                continue;
            }
            found = true;
            OptionalLong value = parseLimit(readTrimmed(limitPath));
            if (value.isPresent() && (limit.isEmpty() || value.getAsLong() < limit.getAsLong())) {
                limit = value;
            }
            if (usage.isEmpty()) {
                usage = parseLimit(readTrimmed(folder.resolve(usageFile)));
            }
        }
        return found ? new CgroupMemory(limit, usage, version) : NONE;
    }

    /**
     * @param text a limit or usage file's content
     * @return the bytes, empty for {@code max}, v1's "no limit" value, or text that is not a number
     */
    static OptionalLong parseLimit(String text) {
        if (text == null || text.isEmpty() || text.equals("max")) {
            return OptionalLong.empty();
        }
        try {
            long value = Long.parseLong(text);
            return value < 0 || value >= NO_LIMIT_THRESHOLD ? OptionalLong.empty() : OptionalLong.of(value);
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    private static String readTrimmed(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8).trim();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** @return the bytes the group may still allocate (limit − usage), empty without a limit */
    public OptionalLong headroomBytes() {
        if (limitBytes.isEmpty()) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(Math.max(0, limitBytes.getAsLong() - usageBytes.orElse(0)));
    }
}
