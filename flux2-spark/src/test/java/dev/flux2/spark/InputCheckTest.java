package dev.flux2.spark;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.InvalidRequestException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InputCheckTest {
    @TempDir
    Path tmp;

    @Test
    void anUnterminatedCsvQuoteIsRefusedNamingTheLineItOpensOn() throws IOException {
        Path file = Files.writeString(tmp.resolve("p.csv"), "id,prompt\na,\"a cat\nb,a dog\n");
        InvalidRequestException e = refused(InputFormat.CSV, file);
        assertTrue(e.getMessage().contains(file.getFileName() + " line 2:"), e.getMessage());
        assertTrue(e.getMessage().contains("never closed"), e.getMessage());
    }

    @Test
    void quotedCsvFieldsMaySpanLinesAndHoldDoubledQuotes() throws IOException {
        Path file = Files.writeString(
                tmp.resolve("p.csv"),
                "id,prompt\r\na,\"a cat\non \"\"two\"\" lines, really\"\r\nb,a 5\" dog\nc,\"\"\n");
        assertDoesNotThrow(() -> check(InputFormat.CSV, false, file));
    }

    @Test
    void aMalformedJsonLineIsRefusedNamingTheLineAndTheParseError() throws IOException {
        Path file = Files.writeString(
                tmp.resolve("p.jsonl"), "{\"id\":\"a\",\"prompt\":\"x\"}\n\n{\"id\":\"b\",\"prompt\":\"y\"\n");
        InvalidRequestException e = refused(InputFormat.JSONL, file);
        assertTrue(e.getMessage().contains(file.getFileName() + " line 3 is not valid JSON: "), e.getMessage());
        assertTrue(e.getMessage().contains("end-of-input"), e.getMessage());
    }

    @Test
    void aJsonLineThatIsNotAnObjectOrHasTrailingTextIsRefused() throws IOException {
        Path scalar = Files.writeString(tmp.resolve("s.jsonl"), "{\"id\":\"a\",\"prompt\":\"x\"}\n42\n");
        assertTrue(
                refused(InputFormat.JSONL, scalar).getMessage().contains("line 2 must be a JSON object, found number"));
        Path trailing = Files.writeString(tmp.resolve("t.jsonl"), "{\"id\":\"a\",\"prompt\":\"x\"} junk\n");
        assertTrue(refused(InputFormat.JSONL, trailing).getMessage().contains("line 1 is not valid JSON"));
    }

    @Test
    void aMalformedJsonArrayNamesTheLine() throws IOException {
        Path file = Files.writeString(tmp.resolve("p.json"), "[\n{\"id\":\"a\",\"prompt\":\"x\"},\n{\"id\":}\n]\n");
        InvalidRequestException e =
                assertThrows(InvalidRequestException.class, () -> check(InputFormat.JSON, true, file));
        assertTrue(e.getMessage().contains("is not valid JSON at line 3"), e.getMessage());
    }

    @Test
    void aTruncatedGzipFileIsRefusedNamingIt() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(bytes)) {
            for (int i = 0; i < 200; i++) {
                gz.write(("{\"id\":\"r" + i + "\",\"prompt\":\"prompt number " + i + "\"}\n")
                        .getBytes(StandardCharsets.UTF_8));
            }
        }
        byte[] whole = bytes.toByteArray();
        Path good = Files.write(tmp.resolve("good.jsonl.gz"), whole);
        assertDoesNotThrow(() -> check(InputFormat.JSONL, false, good));
        Path cut = Files.write(tmp.resolve("cut.jsonl.gz"), Arrays.copyOf(whole, whole.length / 2));
        InvalidRequestException e = refused(InputFormat.JSONL, cut);
        assertTrue(e.getMessage().startsWith("input file "), e.getMessage());
        assertTrue(e.getMessage().contains("cut.jsonl.gz cannot be read (truncated or corrupt?)"), e.getMessage());
    }

    @Test
    void aParquetFileWithoutItsFooterMagicIsRefusedNamingIt() throws IOException {
        Path whole = Files.writeString(tmp.resolve("whole.parquet"), "PAR1 pages and footer PAR1");
        assertDoesNotThrow(() -> check(InputFormat.PARQUET, false, whole));
        Path cut = Files.writeString(tmp.resolve("cut.parquet"), "PAR1 pages and foo");
        InvalidRequestException e = refused(InputFormat.PARQUET, cut);
        assertTrue(e.getMessage().contains("cut.parquet is not a complete Parquet file"), e.getMessage());
        assertTrue(e.getMessage().contains("does not end with PAR1"), e.getMessage());
        Path tiny = Files.writeString(tmp.resolve("tiny.parquet"), "PAR1");
        assertTrue(refused(InputFormat.PARQUET, tiny).getMessage().contains("it has 4 bytes"));
    }

    private static InvalidRequestException refused(InputFormat format, Path file) {
        return assertThrows(InvalidRequestException.class, () -> check(format, false, file));
    }

    private static void check(InputFormat format, boolean jsonArray, Path file) throws IOException {
        org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(file.toUri());
        FileStatus status = FileSystem.getLocal(new Configuration()).getFileStatus(p);
        InputCheck.check(format, jsonArray, List.of(status), new Configuration());
    }
}
