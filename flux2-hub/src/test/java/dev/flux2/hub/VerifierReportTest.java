package dev.flux2.hub;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #33: {@code flux2 verify} said "verified … against the hub ETags in …" of a folder for which nothing was
 * recorded, and repeated a path instead of "permission denied" for an unreadable shard.
 */
class VerifierReportTest {
    @TempDir
    Path dir;

    @Test
    void aFolderWithNoRecordIsReportedAsNotCompared() throws Exception {
        Files.writeString(dir.resolve("model.onnx"), "graph");

        VerificationReport report = new Verifier(KnownBundles.none()).folder(dir);

        assertFalse(report.compared(), report.toString());
        assertEquals("nothing (not the pinned bundle, and no hub ETag is recorded)", report.basis());
        assertEquals(FileVerification.Status.UNVERIFIABLE, report.files().get(0).status());
    }

    @Test
    void theBasisCountsTheETagsThatAreRecorded() {
        Map<String, RemoteFile> expected = new LinkedHashMap<>();
        expected.put("a.onnx", new RemoteFile("a.onnx", -1, "\"" + "0".repeat(64) + "\""));
        expected.put("b.onnx", new RemoteFile("b.onnx", -1, null));
        expected.put("c.onnx", new RemoteFile("c.onnx", -1, null));

        assertEquals(
                "the hub ETags in the cache (1 of 3 files)", Verifier.basis(Optional.empty(), expected, "the cache"));
    }

    @Test
    @EnabledOnOs({OS.LINUX, OS.MAC})
    void anUnreadableShardSaysPermissionDenied() throws Exception {
        // The superuser reads any file: only another user can meet this refusal.
        assumeFalse("root".equals(System.getProperty("user.name")), "runs only as a user other than root");
        Path shard = Files.writeString(dir.resolve("model.onnx_data"), "weights");
        Files.setPosixFilePermissions(shard, PosixFilePermissions.fromString("---------"));

        HubException e = assertThrows(HubException.class, () -> new Verifier(KnownBundles.none()).folder(dir));

        assertTrue(e.getMessage().endsWith(shard + ": permission denied"), e.getMessage());
    }
}
