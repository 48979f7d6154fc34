package dev.flux2.onnx.passes;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;

/**
 * What a pass may touch besides the graph message: the folder the source's external-data locations are relative to
 * (read only), and a data file for tensors it re-types.
 *
 * @param sourceFolder the source graph's folder
 * @param newData where re-typed external tensors are written
 */
public record PassContext(Path sourceFolder, DataSink newData) {
    /** Checks for nulls. */
    public PassContext {
        Objects.requireNonNull(sourceFolder, "sourceFolder");
        Objects.requireNonNull(newData, "newData");
    }

    /** A data file the rewritten graph references for the tensors a pass re-typed. */
    public interface DataSink {
        /** @return the {@code location} to write into the graph for this file */
        String location();

        /**
         * @param bytes little-endian tensor data
         * @return the offset it was written at
         * @throws IOException when writing fails
         */
        long append(byte[] bytes) throws IOException;

        /** @return bytes written so far */
        long size();
    }
}
