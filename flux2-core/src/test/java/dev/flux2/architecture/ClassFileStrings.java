package dev.flux2.architecture;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/**
 * The string literals of a class file: every {@code CONSTANT_String} of its constant pool (what {@code ldc} loads,
 * including compile-time constants inlined from other classes and the constant parts of a string concatenation's
 * recipe). ArchUnit sees types, members and dependencies but not literals, so the rule "core names no hub model"
 * reads them here (JVMS §4.4).
 */
final class ClassFileStrings {
    private ClassFileStrings() {}

    static List<String> of(URI classFile) {
        try (InputStream in = classFile.toURL().openStream()) {
            return parse(in.readAllBytes());
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + classFile, e);
        }
    }

    static List<String> parse(byte[] bytes) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException("not a class file");
        }
        in.readUnsignedShort(); // minor
        in.readUnsignedShort(); // major
        int count = in.readUnsignedShort();
        String[] utf8 = new String[count];
        List<Integer> stringRefs = new ArrayList<>();
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            switch (tag) {
                case 1 -> utf8[i] = in.readUTF();
                case 8 -> stringRefs.add(in.readUnsignedShort());
                case 7, 16, 19, 20 -> in.skipBytes(2);
                case 15 -> in.skipBytes(3);
                case 3, 4, 9, 10, 11, 12, 17, 18 -> in.skipBytes(4);
                case 5, 6 -> {
                    in.skipBytes(8);
                    i++; // a long or double takes two entries
                }
                default -> throw new IOException("unknown constant pool tag " + tag + " at entry " + i);
            }
        }
        List<String> strings = new ArrayList<>(stringRefs.size());
        for (int ref : stringRefs) {
            strings.add(utf8[ref]);
        }
        return strings;
    }
}
