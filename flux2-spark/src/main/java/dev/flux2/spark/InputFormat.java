package dev.flux2.spark;

import dev.flux2.api.InvalidRequestException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.io.compress.CompressionCodecFactory;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The formats {@link Flux2BatchJob} reads requests from, told apart by the file extension (after a compression
 * suffix such as {@code .gz}); for a folder, by the extension of its first data file.
 */
enum InputFormat {
    /** JSON Lines: one object per line. */
    JSONL,
    /**
     * JSON: an array of objects (one document, read whole), or, when the file does not start with {@code [}, one
     * object per line as Spark itself writes {@code .json} files.
     */
    JSON,
    /** CSV with a header line (RFC 4180 quoting, quoted fields may span lines); every column read as a string. */
    CSV,
    /** Parquet. */
    PARQUET;

    private static final List<String> COMPRESSION = List.of(".gz", ".bz2", ".deflate", ".lz4", ".snappy", ".zst");

    /**
     * @param spark the session
     * @param input a file, folder or glob URI
     * @return the requests
     * @throws InvalidRequestException when nothing matches the input, its format is not one of these or a file
     *     cannot be read as that format ({@link InputCheck})
     */
    static Dataset<Row> read(SparkSession spark, String input) {
        return readChecked(spark, input).rows();
    }

    /**
     * The requests and the rows the input check refused.
     *
     * @param rows the requests as Spark reads them
     * @param refused rows to fail, by id, with the reason ({@link InputCheck#check})
     */
    record Requests(Dataset<Row> rows, java.util.Map<String, String> refused) {}

    /**
     * As {@link #read}, with the rows whose text Spark's reader would change.
     *
     * @param spark the session
     * @param input a file, folder or glob URI
     * @return the requests and the refused rows
     */
    static Requests readChecked(SparkSession spark, String input) {
        Configuration conf = spark.sparkContext().hadoopConfiguration();
        List<FileStatus> matches = matches(input, conf);
        InputFormat format = detect(input, matches, conf);
        boolean jsonArray = format == JSON && startsWithArray(matches, conf);
        java.util.Map<String, String> refused = InputCheck.check(format, jsonArray, dataFiles(matches, conf), conf);
        return new Requests(rows(spark, input, format, jsonArray), refused);
    }

    private static Dataset<Row> rows(SparkSession spark, String input, InputFormat format, boolean jsonArray) {
        return switch (format) {
            case JSONL -> spark.read().json(input);
            case JSON -> spark.read().option("multiLine", jsonArray).json(input);
            case CSV ->
                spark.read()
                        .option("header", true)
                        .option("multiLine", true)
                        .option("escape", "\"")
                        .option("inferSchema", false)
                        .csv(input);
            case PARQUET -> spark.read().parquet(input);
        };
    }

    /**
     * @param input the input URI as given
     * @param matches what it matches
     * @param conf the Hadoop configuration
     * @return its format
     * @throws InvalidRequestException when no known extension is found
     */
    static InputFormat detect(String input, List<FileStatus> matches, Configuration conf) {
        Optional<InputFormat> byName = fromName(new Path(input).getName());
        if (byName.isPresent()) {
            return byName.get();
        }
        for (FileStatus status : dataFiles(matches, conf)) {
            Optional<InputFormat> inside = fromName(status.getPath().getName());
            if (inside.isPresent()) {
                return inside.get();
            }
        }
        throw new InvalidRequestException("cannot tell the format of input " + input
                + ": expected a name ending in .jsonl, .json, .csv or .parquet (optionally compressed, e.g. .jsonl.gz),"
                + " or a folder of such files");
    }

    /**
     * @param name a file name
     * @return the format its extension names, if any
     */
    static Optional<InputFormat> fromName(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        for (String suffix : COMPRESSION) {
            if (lower.endsWith(suffix)) {
                lower = lower.substring(0, lower.length() - suffix.length());
                break;
            }
        }
        for (InputFormat f : values()) {
            if (lower.endsWith("." + f.name().toLowerCase(Locale.ROOT))) {
                return Optional.of(f);
            }
        }
        return Optional.empty();
    }

    private static List<FileStatus> matches(String input, Configuration conf) {
        try {
            Path path = new Path(input);
            FileSystem fs = path.getFileSystem(conf);
            FileStatus[] found = fs.globStatus(path);
            if (found == null || found.length == 0) {
                throw new InvalidRequestException("input " + input + " does not exist");
            }
            return Arrays.asList(found);
        } catch (IOException | IllegalArgumentException e) {
            throw new InvalidRequestException("input " + input + " cannot be read: " + Values.oneLine(e), e);
        }
    }

    /** Files, in name order: the matches themselves, or the visible files of matched folders. */
    private static List<FileStatus> dataFiles(List<FileStatus> matches, Configuration conf) {
        List<FileStatus> files = new java.util.ArrayList<>();
        for (FileStatus status : matches) {
            if (status.isFile()) {
                files.add(status);
                continue;
            }
            try {
                FileSystem fs = status.getPath().getFileSystem(conf);
                for (FileStatus child : fs.listStatus(status.getPath())) {
                    String name = child.getPath().getName();
                    if (child.isFile() && !name.startsWith(".") && !name.startsWith("_")) {
                        files.add(child);
                    }
                }
            } catch (IOException e) {
                throw new InvalidRequestException(
                        "input folder " + status.getPath() + " cannot be listed: " + Values.oneLine(e), e);
            }
        }
        files.sort(Comparator.comparing(s -> s.getPath().getName()));
        return files;
    }

    /** Whether the first JSON file's first non-blank character opens an array. */
    private static boolean startsWithArray(List<FileStatus> matches, Configuration conf) {
        List<FileStatus> files = dataFiles(matches, conf);
        if (files.isEmpty()) {
            return false;
        }
        Path first = files.get(0).getPath();
        try {
            FileSystem fs = first.getFileSystem(conf);
            CompressionCodec codec = new CompressionCodecFactory(conf).getCodec(first);
            try (InputStream raw = fs.open(first);
                    InputStream in = codec == null ? raw : codec.createInputStream(raw)) {
                int c;
                do {
                    c = in.read();
                } while (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == 0xEF || c == 0xBB || c == 0xBF);
                return c == '[';
            }
        } catch (IOException e) {
            throw new InvalidRequestException("input " + first + " cannot be read: " + Values.oneLine(e), e);
        }
    }
}
