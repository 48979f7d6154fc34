package dev.flux2.onnx.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CgroupMemoryTest {
    @TempDir
    Path dir;

    private Path write(String relative, String content) throws IOException {
        Path p = dir.resolve(relative);
        Files.createDirectories(p.getParent());
        Files.writeString(p, content);
        return p;
    }

    @Test
    void v2ReadsTheGroupsMaxAndCurrent() throws IOException {
        Path self = write("proc/self/cgroup", "0::/user.slice/app.scope\n");
        write("fs/user.slice/app.scope/memory.max", "4294967296\n");
        write("fs/user.slice/app.scope/memory.current", "1073741824\n");
        CgroupMemory m = CgroupMemory.read(self, dir.resolve("fs"));
        assertEquals(2, m.version());
        assertEquals(OptionalLong.of(4L << 30), m.limitBytes());
        assertEquals(OptionalLong.of(3L << 30), m.headroomBytes());
    }

    @Test
    void v2MaxMeansNoLimitButAParentsLimitBinds() throws IOException {
        Path self = write("proc/self/cgroup", "0::/parent/child\n");
        write("fs/parent/child/memory.max", "max\n");
        write("fs/parent/child/memory.current", "100\n");
        write("fs/parent/memory.max", "2147483648\n");
        CgroupMemory m = CgroupMemory.read(self, dir.resolve("fs"));
        assertEquals(OptionalLong.of(2L << 30), m.limitBytes());
        assertEquals(OptionalLong.of(100), m.usageBytes());
    }

    @Test
    void v2UnlimitedEverywhere() throws IOException {
        Path self = write("proc/self/cgroup", "0::/\n");
        write("fs/memory.max", "max\n");
        CgroupMemory m = CgroupMemory.read(self, dir.resolve("fs"));
        assertEquals(2, m.version());
        assertTrue(m.limitBytes().isEmpty());
        assertTrue(m.headroomBytes().isEmpty());
    }

    @Test
    void v1ReadsTheMemoryControllersGroupAndTreatsTheHugeValueAsNoLimit() throws IOException {
        Path self = write("proc/self/cgroup", "9:name=systemd:/\n4:memory:/process_api/abc\n3:cpuset:/\n0::/\n");
        write("fs/memory/process_api/abc/memory.limit_in_bytes", "9223372036854771712\n");
        write("fs/memory/process_api/abc/memory.usage_in_bytes", "4870144\n");
        write("fs/memory/process_api/memory.limit_in_bytes", "8589934592\n");
        write("fs/memory/memory.limit_in_bytes", "9223372036854771712\n");
        CgroupMemory m = CgroupMemory.read(self, dir.resolve("fs"));
        assertEquals(1, m.version());
        assertEquals(OptionalLong.of(8L << 30), m.limitBytes());
        assertEquals(OptionalLong.of(4870144), m.usageBytes());
    }

    @Test
    void v1GroupNotVisibleInsideAContainerFallsBackToTheRoot() throws IOException {
        Path self = write("proc/self/cgroup", "4:cpu,memory:/docker/0123\n");
        write("fs/memory/memory.limit_in_bytes", "1073741824\n");
        write("fs/memory/memory.usage_in_bytes", "536870912\n");
        CgroupMemory m = CgroupMemory.read(self, dir.resolve("fs"));
        assertEquals(OptionalLong.of(1L << 30), m.limitBytes());
        assertEquals(OptionalLong.of(512L << 20), m.headroomBytes());
    }

    @Test
    void noCgroupFilesMeansNone() throws IOException {
        assertEquals(CgroupMemory.NONE, CgroupMemory.read(dir.resolve("absent"), dir.resolve("fs")));
        Path self = write("proc/self/cgroup", "garbage\n");
        assertEquals(CgroupMemory.NONE, CgroupMemory.read(self, dir.resolve("fs")));
    }

    @Test
    void parseLimitRejectsTextAndNegativeValues() {
        assertTrue(CgroupMemory.parseLimit("max").isEmpty());
        assertTrue(CgroupMemory.parseLimit("-1").isEmpty());
        assertTrue(CgroupMemory.parseLimit("abc").isEmpty());
        assertEquals(OptionalLong.of(42), CgroupMemory.parseLimit("42"));
    }
}
