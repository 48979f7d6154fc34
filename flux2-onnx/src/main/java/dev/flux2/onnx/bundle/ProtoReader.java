package dev.flux2.onnx.bundle;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;

/**
 * A minimal forward reader of the protobuf wire format over a file channel. Length-delimited fields that are not
 * wanted are skipped by moving the position, so large inline initializers are never read into memory.
 * Not thread-safe.
 */
final class ProtoReader {
    static final int VARINT = 0;
    static final int FIXED64 = 1;
    static final int LENGTH_DELIMITED = 2;
    static final int FIXED32 = 5;

    private final FileChannel channel;
    private final long size;
    private final ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
    /** File position of {@code buffer}'s first byte. */
    private long bufferStart;

    ProtoReader(FileChannel channel) throws IOException {
        this.channel = channel;
        this.size = channel.size();
        buffer.limit(0);
    }

    /** @return the current file position */
    long position() {
        return bufferStart + buffer.position();
    }

    /** @return the file size */
    long size() {
        return size;
    }

    /** @return the next field tag (field number << 3 | wire type) */
    int readTag() throws IOException {
        long tag = readVarint();
        if (tag <= 0 || tag > Integer.MAX_VALUE) {
            throw new IOException("invalid protobuf tag " + tag + " at byte " + position());
        }
        return (int) tag;
    }

    /** @return the next varint */
    long readVarint() throws IOException {
        long result = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            int b = readByte();
            result |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return result;
            }
        }
        throw new IOException("malformed protobuf varint at byte " + position());
    }

    /**
     * Reads a length prefix and returns the end position of the delimited field.
     *
     * @param limit the enclosing message's end position
     * @return the field's end position
     */
    long readLengthEnd(long limit) throws IOException {
        long length = readVarint();
        // Compared as a remaining length: position() + length can overflow for a corrupt (huge) length prefix.
        if (length < 0 || length > limit - position()) {
            throw new IOException("protobuf field of " + Long.toUnsignedString(length) + " bytes at byte " + position()
                    + " runs past its enclosing message (ends at " + limit + ")");
        }
        return position() + length;
    }

    /** @param end the end position of a length-delimited string field @return the UTF-8 string */
    String readString(long end) throws IOException {
        long length = end - position();
        if (length < 0 || length > 1 << 20) {
            throw new IOException(
                    "protobuf string of " + length + " bytes at byte " + position() + " is implausibly long");
        }
        byte[] bytes = new byte[(int) length];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) readByte();
        }
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /**
     * Skips the value of a field.
     *
     * @param wireType the wire type from its tag
     * @param limit the enclosing message's end position
     */
    void skipValue(int wireType, long limit) throws IOException {
        switch (wireType) {
            case VARINT -> readVarint();
            case FIXED64 -> seek(position() + 8, limit);
            case LENGTH_DELIMITED -> seek(readLengthEnd(limit), limit);
            case FIXED32 -> seek(position() + 4, limit);
            default -> throw new IOException("unsupported protobuf wire type " + wireType + " at byte " + position());
        }
    }

    /**
     * Moves to a position at or after the current one.
     *
     * @param target the new position
     * @param limit the enclosing message's end position
     */
    void seek(long target, long limit) throws IOException {
        if (target > limit || target > size) {
            throw new IOException("protobuf skip to byte " + target + " runs past byte " + Math.min(limit, size));
        }
        long relative = target - bufferStart;
        if (relative >= 0 && relative <= buffer.limit()) {
            buffer.position((int) relative);
        } else {
            bufferStart = target;
            buffer.clear();
            buffer.limit(0);
        }
    }

    private int readByte() throws IOException {
        if (!buffer.hasRemaining()) {
            fill();
        }
        return buffer.get() & 0xFF;
    }

    private void fill() throws IOException {
        bufferStart = position();
        buffer.clear();
        while (buffer.position() == 0) {
            int n = channel.read(buffer, bufferStart);
            if (n < 0) {
                throw new EOFException("unexpected end of file at byte " + bufferStart);
            }
        }
        buffer.flip();
    }
}
