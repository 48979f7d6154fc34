package dev.flux2.spark;

import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/** Request table schemas the tests build data frames with. */
final class RequestSchemas {
    /**
     * The request columns with their natural types: {@code id} and {@code prompt} strings, {@code seed} a long,
     * {@code width}, {@code height} and {@code steps} ints; rows are {@code (id, prompt, seed, width, height, steps)}.
     */
    static final StructType TYPED = new StructType()
            .add("id", DataTypes.StringType)
            .add("prompt", DataTypes.StringType)
            .add("seed", DataTypes.LongType)
            .add("width", DataTypes.IntegerType)
            .add("height", DataTypes.IntegerType)
            .add("steps", DataTypes.IntegerType);

    private RequestSchemas() {}
}
