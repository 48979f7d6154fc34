package dev.flux2.spark;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flux2.api.InvalidRequestException;
import dev.flux2.api.UnicodeText;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.io.compress.CompressionCodecFactory;

/**
 * Reads the input files through once on the driver, before Spark does, to refuse what Spark's readers would take
 * silently or report badly: an unterminated CSV quote (which swallows the following rows), a malformed JSON line
 * (which Spark turns into a row of nulls, failing later as "id must be set"), a truncated compressed file or
 * Parquet file (a task failure with a long trace). Each refusal names the file and, for text, the line. Request
 * inputs are small next to the generation they drive, so the extra read costs little.
 */
final class InputCheck {
    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final byte[] PARQUET_MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);

    private InputCheck() {}

    /**
     * @param format the input's format
     * @param jsonArray for {@link InputFormat#JSON}, whether the files hold one array each (else one object a line)
     * @param files the data files
     * @param conf the Hadoop configuration
     * @return the rows to fail, by their id as Spark reads it, with the reason: JSON rows whose text holds a lone
     *     surrogate (an escape {@code \\ud800}), which Spark's reader would silently turn into {@code ?}
     * @throws InvalidRequestException naming the file (and line) that cannot be read as {@code format}
     */
    static Map<String, String> check(
            InputFormat format, boolean jsonArray, List<FileStatus> files, Configuration conf) {
        Map<String, String> refused = new LinkedHashMap<>();
        for (FileStatus file : files) {
            Path path = file.getPath();
            try {
                switch (format) {
                    case JSONL -> jsonLines(path, conf, refused);
                    case JSON -> {
                        if (jsonArray) {
                            jsonDocument(path, conf, refused);
                        } else {
                            jsonLines(path, conf, refused);
                        }
                    }
                    case CSV -> csv(path, conf);
                    case PARQUET -> parquet(file, conf);
                }
            } catch (IOException e) {
                throw new InvalidRequestException(
                        "input file " + path + " cannot be read (truncated or corrupt?): " + Values.oneLine(e), e);
            }
        }
        return refused;
    }

    /**
     * Notes a request object whose text columns are not valid Unicode, by the id Spark will read: its UTF-8
     * encoding, where a lone surrogate has become {@code ?} too.
     */
    private static void checkText(JsonNode request, Map<String, String> refused) {
        if (!request.isObject() || !request.hasNonNull(RequestColumns.ID)) {
            return;
        }
        for (String column : List.of(
                RequestColumns.ID, RequestColumns.PROMPT, RequestColumns.INIT_IMAGE, RequestColumns.REFERENCE_IMAGES)) {
            JsonNode value = request.get(column);
            List<JsonNode> texts = value == null ? List.of() : value.isArray() ? toList(value) : List.of(value);
            for (JsonNode text : texts) {
                if (text.isTextual() && UnicodeText.firstLoneSurrogate(text.asText()) >= 0) {
                    String id = request.get(RequestColumns.ID).asText();
                    String asSparkReadsIt = new String(id.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
                    try {
                        UnicodeText.requireWellFormed(text.asText(), "column " + column);
                    } catch (InvalidRequestException e) {
                        refused.putIfAbsent(asSparkReadsIt, e.getMessage());
                    }
                    return;
                }
            }
        }
    }

    private static List<JsonNode> toList(JsonNode array) {
        List<JsonNode> out = new java.util.ArrayList<>();
        array.forEach(out::add);
        return out;
    }

    private static BufferedReader open(Path path, Configuration conf) throws IOException {
        FileSystem fs = path.getFileSystem(conf);
        CompressionCodec codec = new CompressionCodecFactory(conf).getCodec(path);
        InputStream raw = fs.open(path);
        try {
            InputStream in = codec == null ? raw : codec.createInputStream(raw);
            return new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8), 1 << 16);
        } catch (IOException | RuntimeException e) {
            raw.close();
            throw e;
        }
    }

    private static void jsonLines(Path path, Configuration conf, Map<String, String> refused) throws IOException {
        try (BufferedReader in = open(path, conf)) {
            String line;
            long number = 0;
            while ((line = in.readLine()) != null) {
                number++;
                if (line.isBlank()) {
                    continue;
                }
                JsonNode node;
                try {
                    node = JSON.readTree(line);
                } catch (JsonProcessingException e) {
                    throw new InvalidRequestException(String.format(
                            Locale.ROOT,
                            "input file %s line %d is not valid JSON: %s",
                            path,
                            number,
                            e.getOriginalMessage().replaceAll("\\s*\\R\\s*", " ")));
                }
                if (!node.isObject() && !node.isArray()) {
                    throw new InvalidRequestException(String.format(
                            Locale.ROOT,
                            "input file %s line %d must be a JSON object, found %s",
                            path,
                            number,
                            node.getNodeType().name().toLowerCase(Locale.ROOT)));
                }
                if (node.isArray()) {
                    node.forEach(n -> checkText(n, refused));
                } else {
                    checkText(node, refused);
                }
            }
        }
    }

    private static void jsonDocument(Path path, Configuration conf, Map<String, String> refused) throws IOException {
        try (Reader in = open(path, conf)) {
            JsonNode root = JSON.readTree(in);
            if (root != null && root.isArray()) {
                root.forEach(n -> checkText(n, refused));
            } else if (root != null) {
                checkText(root, refused);
            }
        } catch (JsonParseException e) {
            throw new InvalidRequestException(String.format(
                    Locale.ROOT,
                    "input file %s is not valid JSON at line %d, column %d: %s",
                    path,
                    e.getLocation().getLineNr(),
                    e.getLocation().getColumnNr(),
                    e.getOriginalMessage().replaceAll("\\s*\\R\\s*", " ")));
        }
    }

    /**
     * RFC 4180 as Spark's reader takes it ({@code quote} and {@code escape} both {@code "}): a quote opens a quoted
     * field only at the start of a field; inside one, {@code ""} is a quote and a lone {@code "} closes it. A field
     * still open at the end of the file is an unterminated quote: refused, naming the line where it opened.
     */
    private static void csv(Path path, Configuration conf) throws IOException {
        final int fieldStart = 0;
        final int unquoted = 1;
        final int quoted = 2;
        final int quoteInQuoted = 3;
        try (Reader in = open(path, conf)) {
            int state = fieldStart;
            long line = 1;
            long openedAt = 0;
            int c;
            while ((c = in.read()) != -1) {
                if (c == '\n') {
                    line++;
                }
                switch (state) {
                    case fieldStart -> {
                        if (c == '"') {
                            state = quoted;
                            openedAt = line;
                        } else if (c != ',' && c != '\n' && c != '\r') {
                            state = unquoted;
                        }
                    }
                    case unquoted -> {
                        if (c == ',' || c == '\n') {
                            state = fieldStart;
                        }
                    }
                    case quoted -> {
                        if (c == '"') {
                            state = quoteInQuoted;
                        }
                    }
                    default -> {
                        if (c == '"') {
                            state = quoted;
                        } else if (c == ',' || c == '\n') {
                            state = fieldStart;
                        } else if (c != '\r') {
                            state = unquoted;
                        }
                    }
                }
            }
            if (state == quoted) {
                throw new InvalidRequestException(String.format(
                        Locale.ROOT,
                        "input file %s line %d: the quoted field opened there is never closed (it would swallow the"
                                + " rows after it); close it, and write a quote inside a quoted field as \"\"",
                        path,
                        openedAt));
            }
        }
    }

    /** A Parquet file starts and ends with {@code PAR1}; one cut short has lost its footer. */
    private static void parquet(FileStatus file, Configuration conf) throws IOException {
        Path path = file.getPath();
        long length = file.getLen();
        if (length < 2L * PARQUET_MAGIC.length) {
            throw notParquet(path, "it has " + length + " bytes");
        }
        byte[] head = new byte[PARQUET_MAGIC.length];
        byte[] tail = new byte[PARQUET_MAGIC.length];
        try (FSDataInputStream in = path.getFileSystem(conf).open(path)) {
            in.readFully(0, head);
            in.readFully(length - tail.length, tail);
        }
        if (!java.util.Arrays.equals(head, PARQUET_MAGIC)) {
            throw notParquet(path, "it does not start with PAR1");
        }
        if (!java.util.Arrays.equals(tail, PARQUET_MAGIC)) {
            throw notParquet(path, "it does not end with PAR1 (truncated?)");
        }
    }

    private static InvalidRequestException notParquet(Path path, String why) {
        return new InvalidRequestException("input file " + path + " is not a complete Parquet file: " + why);
    }
}
