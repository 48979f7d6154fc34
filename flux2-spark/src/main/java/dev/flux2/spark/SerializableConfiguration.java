package dev.flux2.spark;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import org.apache.hadoop.conf.Configuration;

/** A Hadoop {@link Configuration} that travels to the executors (in a broadcast), written with its own format. */
final class SerializableConfiguration implements Serializable {
    private static final long serialVersionUID = 1L;
    private transient Configuration value;

    SerializableConfiguration(Configuration value) {
        this.value = value;
    }

    /** @return the configuration */
    Configuration get() {
        return value;
    }

    private void writeObject(ObjectOutputStream out) throws IOException {
        out.defaultWriteObject();
        value.write(out);
    }

    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
        in.defaultReadObject();
        value = new Configuration(false);
        value.readFields(in);
    }
}
