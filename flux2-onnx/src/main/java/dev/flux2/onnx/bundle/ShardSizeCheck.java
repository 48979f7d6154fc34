package dev.flux2.onnx.bundle;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Compares shard sizes on disk with a model entry's {@code shards} promise, naming the shard that is off.
 *
 * <p>The config promises only the count, the total and the largest size. With one or two shards that pins every
 * shard's size ({total} or {largest, total − largest}), so the offending file is named with its expected size;
 * with more shards the message lists every size against the two totals.
 */
final class ShardSizeCheck {
    private ShardSizeCheck() {}

    /**
     * @param key the model entry key
     * @param manifest the manifest's file name
     * @param names shard names in manifest order
     * @param sizes their sizes (all present)
     * @param info the promise
     * @return a problem description, or empty when the sizes match
     */
    static Optional<String> check(String key, String manifest, List<String> names, List<Long> sizes, ShardInfo info) {
        long total = 0;
        long largest = 0;
        for (long s : sizes) {
            total += s;
            largest = Math.max(largest, s);
        }
        if (total == info.totalBytes() && largest == info.largestBytes()) {
            return Optional.empty();
        }
        List<Long> expected = expectedSizes(info);
        if (expected.isEmpty()) {
            StringBuilder msg = new StringBuilder("shards of models.")
                    .append(key)
                    .append(" (")
                    .append(manifest)
                    .append(") total ")
                    .append(total)
                    .append(" bytes, expected ")
                    .append(info.totalBytes())
                    .append(" (shards.total_bytes); largest ")
                    .append(largest)
                    .append(" bytes, expected ")
                    .append(info.largestBytes())
                    .append(" (shards.largest_bytes); sizes:");
            for (int i = 0; i < names.size(); i++) {
                msg.append(' ').append(names.get(i)).append('=').append(sizes.get(i));
            }
            return Optional.of(
                    msg.append(": a shard is truncated or incomplete").toString());
        }
        // Pair exact matches first; the shards left over are the wrong ones.
        List<Long> remaining = new ArrayList<>(expected);
        List<Integer> wrong = new ArrayList<>();
        for (int i = 0; i < sizes.size(); i++) {
            if (!remaining.remove(sizes.get(i))) {
                wrong.add(i);
            }
        }
        String promise = "(models." + key + ".shards: total_bytes " + info.totalBytes() + ", largest_bytes "
                + info.largestBytes() + "; found total " + total + ", largest " + largest + ")";
        if (wrong.isEmpty()) {
            // Every shard has a size the promise allows, so the promise contradicts itself (count 1 with
            // total_bytes != largest_bytes): no file can be blamed.
            return Optional.of("the shards of models." + key + " (" + manifest + ") do not match the config " + promise
                    + ": the config's shard sizes are inconsistent");
        }
        List<String> parts = new ArrayList<>();
        for (int w = 0; w < wrong.size(); w++) {
            int i = wrong.get(w);
            parts.add("shard " + names.get(i) + " is " + sizes.get(i) + " bytes, expected " + remaining.get(w));
        }
        return Optional.of(String.join("; ", parts) + " " + promise + ": truncated or incomplete download");
    }

    private static List<Long> expectedSizes(ShardInfo info) {
        if (info.count() == 1) {
            return List.of(info.totalBytes());
        }
        if (info.count() == 2 && info.totalBytes() >= info.largestBytes()) {
            return List.of(info.largestBytes(), info.totalBytes() - info.largestBytes());
        }
        return List.of();
    }
}
