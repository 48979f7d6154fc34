package dev.flux2.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.InvalidRequestException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RowIdTest {
    @ParameterizedTest
    @ValueSource(
            strings = {
                "p1",
                "SKU-123_a",
                "0",
                "a.b.c",
                "x2345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678"
            })
    void safeIdsAreFileNames(String id) {
        assertEquals(id + ".png", new RowId(id).fileName());
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"", "../evil", "a/b", "a\\b", ".hidden", "_hidden", "-dash", "a b", "a:b", "é", "a\u0000b", "a*"
            })
    void unsafeIdsAreRefusedNamingTheValue(String id) {
        InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> new RowId(id));
        assertTrue(e.getMessage().startsWith("id must be 1 to 128 characters"), e.getMessage());
        assertEquals(1, e.getMessage().lines().count(), "one line: " + e.getMessage());
    }

    @Test
    void nullAndTooLongIdsAreRefused() {
        assertThrows(InvalidRequestException.class, () -> new RowId(null));
        InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> new RowId("x".repeat(129)));
        assertTrue(e.getMessage().contains("…"), "long values are cut: " + e.getMessage());
    }

    /** Expected values from Python: int.from_bytes(hashlib.sha256(id.encode()).digest()[:4], "big"). */
    @Test
    void derivedSeedIsTheFirstFourBytesOfSha256() {
        assertEquals(4131738108L, RowId.derivedSeed("p1"));
        assertEquals(1015226037L, RowId.derivedSeed("row-0"));
        assertEquals(3398926610L, RowId.derivedSeed("a"));
        assertEquals(3679595064L, new RowId("r17").derivedSeed());
    }
}
