package dev.flux2.spark;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.ChecksumFileSystem;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/** The file system flux2 writes its own files with. */
final class HadoopFiles {
    private HadoopFiles() {}

    /**
     * @param path a path or URI
     * @param conf the Hadoop configuration
     * @return its file system; for the local one the raw file system, so no {@code .crc} files appear beside the
     *     images (they would only checksum what the PNG's own chunk CRCs already do)
     * @throws IOException when the file system cannot be reached
     */
    static FileSystem forWriting(Path path, Configuration conf) throws IOException {
        FileSystem fs = path.getFileSystem(conf);
        return fs instanceof ChecksumFileSystem checksummed ? checksummed.getRawFileSystem() : fs;
    }
}
