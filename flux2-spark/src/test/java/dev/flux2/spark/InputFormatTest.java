package dev.flux2.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flux2.api.InvalidRequestException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InputFormatTest {
    @TempDir
    Path tmp;

    @Test
    void theExtensionNamesTheFormatAfterACompressionSuffix() {
        assertEquals(Optional.of(InputFormat.JSONL), InputFormat.fromName("prompts.jsonl"));
        assertEquals(Optional.of(InputFormat.JSONL), InputFormat.fromName("prompts.JSONL.gz"));
        assertEquals(Optional.of(InputFormat.JSON), InputFormat.fromName("part-00000-x.json"));
        assertEquals(Optional.of(InputFormat.CSV), InputFormat.fromName("p.csv.bz2"));
        assertEquals(Optional.of(InputFormat.PARQUET), InputFormat.fromName("part-0.snappy.parquet"));
        assertEquals(Optional.empty(), InputFormat.fromName("prompts.txt"));
        assertEquals(Optional.empty(), InputFormat.fromName("prompts"));
    }

    @Test
    void aFolderIsTheFormatOfItsDataFiles() throws IOException {
        Path dir = Files.createDirectories(tmp.resolve("requests"));
        Files.writeString(dir.resolve("_SUCCESS"), "");
        Files.writeString(dir.resolve(".part-0.parquet.crc"), "");
        Files.writeString(dir.resolve("part-0.snappy.parquet"), "");
        assertEquals(InputFormat.PARQUET, InputFormat.detect(dir.toString(), statuses(dir), new Configuration()));
    }

    @Test
    void anUnknownFormatNamesTheExpectedExtensions() throws IOException {
        Path file = Files.writeString(tmp.resolve("prompts.txt"), "x");
        InvalidRequestException e = assertThrows(
                InvalidRequestException.class,
                () -> InputFormat.detect(file.toString(), statuses(file), new Configuration()));
        assertTrue(e.getMessage().contains(".jsonl, .json, .csv or .parquet"), e.getMessage());
    }

    private static List<FileStatus> statuses(Path path) throws IOException {
        org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(path.toUri());
        return List.of(FileSystem.getLocal(new Configuration()).getFileStatus(p));
    }
}
