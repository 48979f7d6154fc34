package dev.flux2.bench.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.MemoryPolicy;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ProfileOptionsTest {

    @Test
    void defaultsDependOnTheMode() {
        ProfileOptions profile = ProfileOptions.parse(new String[0]);
        assertEquals(ProfileOptions.Mode.PROFILE, profile.mode());
        assertEquals("synthetic", profile.bundle());
        assertEquals(512, profile.size());
        assertEquals(4, profile.steps());
        assertEquals(3, profile.generations());
        assertEquals(List.of(MemoryPolicy.SEQUENTIAL, MemoryPolicy.RESIDENT), profile.policies());
        assertEquals(0, profile.paddingBytes());

        ProfileOptions growth = ProfileOptions.parse(new String[] {"--mode", "rss-growth"});
        assertEquals(50, growth.generations());
        assertEquals(List.of(MemoryPolicy.RESIDENT), growth.policies());

        ProfileOptions memory = ProfileOptions.parse(new String[] {"--mode", "memory"});
        assertEquals(List.of(MemoryPolicy.SEQUENTIAL), memory.policies());
        assertEquals(1L << 30, memory.paddingBytes());
    }

    @Test
    void childArgumentsReproduceTheOptionsForOnePolicy() {
        ProfileOptions options = ProfileOptions.parse(new String[] {
            "--bundle",
            "timing",
            "--size",
            "256",
            "--steps",
            "2",
            "--generations",
            "5",
            "--threads",
            "1",
            "--json",
            "/tmp/out/profile.json"
        });
        ProfileOptions child = ProfileOptions.parse(
                options.childArguments(MemoryPolicy.RESIDENT).toArray(new String[0]));
        assertEquals(options.mode(), child.mode());
        assertEquals("timing", child.bundle());
        assertEquals(256, child.size());
        assertEquals(2, child.steps());
        assertEquals(5, child.generations());
        assertEquals(1, child.threads());
        assertEquals(List.of(MemoryPolicy.RESIDENT), child.policies());
        assertEquals(Optional.of(Path.of("/tmp/out/profile-resident.json")), child.json());
    }

    @Test
    void badOptionsAreNamed() {
        assertMessage("--size", new String[] {"--size", "500"});
        assertMessage("--steps", new String[] {"--steps", "0"});
        assertMessage("--frobnicate", new String[] {"--frobnicate", "1"});
        assertMessage("needs a value", new String[] {"--size"});
        assertMessage("rss-growth", new String[] {"--mode", "rss-growth", "--policy", "sequential"});
    }

    private static void assertMessage(String expected, String[] args) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ProfileOptions.parse(args));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}
