package dev.flux2.spark;

import dev.flux2.io.PngFiles;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The images folder {@code <output>/images} and its write protocol, through Hadoop's {@code FileSystem}:
 *
 * <ol>
 *   <li>the PNG is written whole to a hidden temporary file {@code .<id>.png.<attempt-tag>.tmp} beside its target
 *       (hidden from Hadoop and Spark readers, unique per task attempt);
 *   <li>it is renamed to {@code <id>.png};
 *   <li>if the file system refuses the rename because the target exists (HDFS and S3A never replace a file) and
 *       the target is a complete image of the same request, another attempt of the same row finished first: its
 *       file is kept; otherwise the stale target is deleted and the rename repeated;
 *   <li>the temporary file is deleted whatever happened.
 * </ol>
 *
 * <p>On a local file system the raw file system is used, so no {@code .crc} checksum files appear beside the
 * images. Not thread-safe for the same id; different ids may be written concurrently.
 */
final class ImageStore {
    /** The images folder under the output. */
    static final String IMAGES = "images";

    private static final Logger LOG = LoggerFactory.getLogger(ImageStore.class);
    private static final Pattern TEMPORARY = Pattern.compile("\\..+\\.png\\..+\\.tmp");

    private final FileSystem fs;
    private final Path images;

    private ImageStore(FileSystem fs, Path images) {
        this.fs = fs;
        this.images = images;
    }

    /**
     * @param output the output folder URI
     * @param conf the Hadoop configuration
     * @return the store, its images folder created if needed
     * @throws IOException when the folder cannot be created
     */
    static ImageStore open(String output, Configuration conf) throws IOException {
        Path out = new Path(output);
        FileSystem fs = HadoopFiles.forWriting(out, conf);
        Path images = fs.makeQualified(new Path(out, IMAGES));
        if (!fs.mkdirs(images)) {
            throw new IOException("cannot create the images folder " + images);
        }
        return new ImageStore(fs, images);
    }

    /**
     * @param id a row id
     * @return the fully qualified path of its image
     */
    Path target(RowId id) {
        return new Path(images, id.fileName());
    }

    /**
     * @param id a row id
     * @return the text entries of the complete PNG at its path, or empty when there is none or it is incomplete
     * @throws IOException when the file system fails for another reason than a missing or broken file
     */
    Optional<Map<String, String>> existing(RowId id) throws IOException {
        return readComplete(target(id));
    }

    /**
     * Writes an image with the protocol above.
     *
     * @param id the row
     * @param png the PNG bytes
     * @param sameRequest whether an existing image's text entries describe this row's request
     * @param attempt the task attempt, which names the temporary file and reaches the test hook
     * @return the image's fully qualified path
     * @throws IOException when the image cannot be written or renamed
     * @throws dev.flux2.api.InvalidRequestException when a folder is at the image's path (a failed row)
     */
    Path write(RowId id, byte[] png, Predicate<Map<String, String>> sameRequest, TaskAttempt attempt)
            throws IOException {
        Path target = target(id);
        // A rename onto a folder moves the file into it: the row would be "ok" with the image hidden inside.
        if (fs.exists(target) && fs.getFileStatus(target).isDirectory()) {
            throw new dev.flux2.api.InvalidRequestException(
                    "the image of row " + Values.quote(id.value()) + " cannot be written: " + target
                            + " is a folder, expected a PNG file or nothing; move the folder away");
        }
        Path temporary = new Path(images, "." + id.fileName() + "." + attempt.tag() + ".tmp");
        boolean moved = false;
        try {
            try (OutputStream out = fs.create(temporary, false)) {
                out.write(png);
            }
            WriteFaults.afterTemporaryWritten(id, temporary, attempt.attemptNumber());
            moved = commit(temporary, target, sameRequest);
            return target;
        } finally {
            if (!moved) {
                deleteQuietly(temporary);
            }
        }
    }

    /** @return true when the temporary file became the target, false when it must still be deleted */
    private boolean commit(Path temporary, Path target, Predicate<Map<String, String>> sameRequest) throws IOException {
        if (fs.rename(temporary, target)) {
            return true;
        }
        Optional<Map<String, String>> existing = readComplete(target);
        if (existing.isPresent() && sameRequest.test(existing.get())) {
            LOG.debug("{} was completed by another attempt meanwhile; keeping it", target);
            return false;
        }
        // A stale or broken file from an earlier run: replace it (never partial, but briefly absent).
        fs.delete(target, false);
        if (!fs.rename(temporary, target)) {
            throw new IOException("cannot rename " + temporary + " to " + target);
        }
        return true;
    }

    private Optional<Map<String, String>> readComplete(Path file) throws IOException {
        InputStream in;
        try {
            in = fs.open(file);
        } catch (FileNotFoundException e) {
            return Optional.empty();
        }
        try (in) {
            return Optional.of(PngFiles.readTextEntries(in));
        } catch (FileNotFoundException e) {
            return Optional.empty();
        } catch (IOException e) {
            LOG.debug("{} is not a complete PNG ({}); it will be replaced", file, Values.oneLine(e));
            return Optional.empty();
        }
    }

    private void deleteQuietly(Path file) {
        try {
            fs.delete(file, false);
        } catch (IOException | RuntimeException e) {
            LOG.warn("cannot delete the temporary file {}: {}", file, Values.oneLine(e));
        }
    }

    /**
     * Deletes temporary files that attempts which died without cleaning up (a killed executor) left in
     * {@code <output>/images}. Call it when no task of the batch runs any more.
     *
     * @param output the output folder URI
     * @param conf the Hadoop configuration
     * @return how many files were deleted
     * @throws IOException when the folder cannot be listed
     */
    static int deleteTemporaryFiles(String output, Configuration conf) throws IOException {
        ImageStore store = open(output, conf);
        int deleted = 0;
        for (FileStatus status : store.fs.listStatus(store.images)) {
            if (status.isFile() && TEMPORARY.matcher(status.getPath().getName()).matches()) {
                if (store.fs.delete(status.getPath(), false)) {
                    deleted++;
                }
            }
        }
        return deleted;
    }
}
