package dev.flux2.onnx.bundle;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Checks the external-data files a graph's initializers reference, as recorded in the graph itself: each must sit
 * inside the graph's folder (ONNX Runtime refuses locations that escape it) and hold at least the bytes the graph
 * reads from it. This works whether or not the config lists the shards in a manifest, in whatever order, and
 * whether a shard belongs to one graph or is shared (the fused transformer reuses the per-step shards). Stateless.
 */
public final class ExternalDataCheck {
    private ExternalDataCheck() {}

    /**
     * @param key the graph's config key
     * @param signature its signature (with the external-data references)
     * @return human-readable problems, empty when every referenced shard is present and large enough
     */
    public static List<String> problems(String key, GraphSignature signature) {
        return problems(key, signature, FileSizes.disk());
    }

    /**
     * @param key the graph's config key
     * @param signature its signature (with the external-data references)
     * @param sizes where each shard's size comes from (the disk, or a hub's file list for shards not fetched)
     * @return human-readable problems, empty when every referenced shard is present (or listed) and large enough
     */
    public static List<String> problems(String key, GraphSignature signature, FileSizes sizes) {
        List<String> problems = new ArrayList<>();
        Path folder = signature.file().toAbsolutePath().getParent();
        String graph = "graph " + key + " (" + signature.file().getFileName() + ")";
        for (Map.Entry<String, Long> ref : signature.externalData().entrySet()) {
            String location = ref.getKey();
            Path shard;
            try {
                shard = folder.resolve(location).normalize();
            } catch (InvalidPathException e) {
                problems.add(graph + " references external data '" + location + "', which is not a valid file name"
                        + " here (" + e.getReason() + ")");
                continue;
            }
            if (!shard.startsWith(folder.normalize())) {
                problems.add(graph + " references external data '" + location + "' outside its folder " + folder
                        + ", which ONNX Runtime refuses to load");
                continue;
            }
            long size = sizes.sizeOf(shard);
            if (size < 0) {
                String what = dev.flux2.spi.ModelFiles.notRegular(shard).orElse("does not exist");
                problems.add(graph + " reads its weights from " + location + ", which "
                        + (what.equals("does not exist") ? "is missing from " + folder + sizes.absenceNote() : what));
            } else if (size < ref.getValue()) {
                problems.add("shard " + location + " is " + size + " bytes but " + graph + " reads up to byte "
                        + ref.getValue() + " of it: truncated or incomplete download");
            }
        }
        return problems;
    }
}
