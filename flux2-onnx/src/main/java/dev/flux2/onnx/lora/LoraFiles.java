package dev.flux2.onnx.lora;

import dev.flux2.api.InvalidRequestException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a FLUX.2 LoRA file into the low-rank updates of the transformer's layers, as diffusers'
 * {@code Flux2LoraLoaderMixin} loads it (src/diffusers/loaders/lora_pipeline.py @58eb52c, lines 5771–5837): DoRA
 * scales dropped with a warning; kohya when any key ends in {@code .lora_down.weight}; PEFT's
 * {@code base_model.model.} read as BFL's {@code diffusion_model.}; BFL / ai-toolkit when any key starts with
 * {@code diffusion_model.}; diffusers' own names otherwise. Every key must map to a layer of the FLUX.2 transformer
 * and every layer needs both factors of matching rank; anything else is refused before any model work, naming the
 * first keys. Stateless.
 */
public final class LoraFiles {
    /** The largest LoRA file read (rank 128 on every layer of klein 4B is about 0.6 GB in fp32). */
    public static final long MAX_FILE_BYTES = 4L << 30;

    private static final int KEYS_NAMED = 5;
    private static final Logger LOG = LoggerFactory.getLogger(LoraFiles.class);

    private LoraFiles() {}

    /**
     * @param file a LoRA safetensors file
     * @return its layers, format and content hash
     * @throws InvalidRequestException naming the file and what is wrong with it
     */
    public static LoraAdapterFile read(Path file) {
        SafetensorsFile st = SafetensorsFile.open(file, MAX_FILE_BYTES);
        Map<String, LoraTensor> tensors = new LinkedHashMap<>();
        List<String> dora = new ArrayList<>();
        for (SafetensorsFile.Entry e : st.entries().values()) {
            if (e.name().contains("dora_scale")) {
                dora.add(e.name());
                continue;
            }
            tensors.put(e.name(), new LoraTensor(e.name(), e.dtype(), e.shape(), st.floats(e)));
        }
        if (!dora.isEmpty()) {
            LOG.warn(
                    "LoRA file {}: {} DoRA scale tensors ignored, as diffusers ignores them (e.g. {})",
                    file,
                    dora.size(),
                    dora.get(0));
        }
        if (tensors.isEmpty()) {
            throw new InvalidRequestException("LoRA file " + file + " holds no LoRA tensors");
        }
        List<String> unmapped = new ArrayList<>();
        LoraFormat format;
        Map<String, LoraTensor> diffusers;
        if (tensors.keySet().stream().anyMatch(k -> k.contains(".lora_down.weight"))) {
            format = LoraFormat.KOHYA;
            diffusers = KohyaLoraKeys.toDiffusers(tensors, unmapped);
        } else {
            if (tensors.keySet().stream().anyMatch(k -> k.startsWith("base_model.model."))) {
                Map<String, LoraTensor> renamed = new LinkedHashMap<>();
                tensors.forEach((k, v) -> renamed.put(k.replace("base_model.model.", "diffusion_model."), v));
                tensors = renamed;
            }
            if (tensors.keySet().stream().anyMatch(k -> k.startsWith("diffusion_model."))) {
                format = LoraFormat.BFL;
                Map<String, LoraTensor> bfl = new LinkedHashMap<>();
                tensors.forEach((k, v) -> {
                    if (k.startsWith("diffusion_model.")) {
                        bfl.put(k, v);
                    } else {
                        unmapped.add(k);
                    }
                });
                diffusers = BflLoraKeys.toDiffusers(bfl, unmapped);
            } else {
                format = LoraFormat.DIFFUSERS;
                diffusers = tensors;
            }
        }
        List<LoraLayer> layers = layers(file, diffusers, unmapped, PeftScale.fromMetadata(file, st.metadata()));
        if (!unmapped.isEmpty()) {
            throw new InvalidRequestException("LoRA file " + file + " ("
                    + format.name().toLowerCase(java.util.Locale.ROOT)
                    + " layout) has " + unmapped.size()
                    + " keys that map to no layer of the FLUX.2 [klein] transformer,"
                    + " e.g. " + String.join(", ", unmapped.subList(0, Math.min(KEYS_NAMED, unmapped.size())))
                    + " (another model's LoRA, a text-encoder LoRA or an unknown layout?)");
        }
        if (layers.isEmpty()) {
            throw new InvalidRequestException("LoRA file " + file + " adapts no layer of the FLUX.2 transformer");
        }
        return new LoraAdapterFile(file, sha256(file), format, layers);
    }

    /** Groups {@code transformer.<module>.lora_A/B.weight} into layers; other keys go to {@code unmapped}. */
    private static List<LoraLayer> layers(
            Path file, Map<String, LoraTensor> diffusers, List<String> unmapped, PeftScale scale) {
        Map<String, LoraTensor[]> byModule = new TreeMap<>();
        for (Map.Entry<String, LoraTensor> e : diffusers.entrySet()) {
            String key = e.getKey()
                    .replace(".lora.down.weight", ".lora_A.weight")
                    .replace(".lora.up.weight", ".lora_B.weight");
            int slot = key.endsWith(".lora_A.weight") ? 0 : key.endsWith(".lora_B.weight") ? 1 : -1;
            String module = slot < 0 ? null : key.substring(0, key.length() - ".lora_A.weight".length());
            if (module == null
                    || !module.startsWith("transformer.")
                    || !KleinLoraTargets.isTarget(module.substring("transformer.".length()))) {
                unmapped.add(e.getKey());
                continue;
            }
            byModule.computeIfAbsent(module.substring("transformer.".length()), m -> new LoraTensor[2])[slot] =
                    e.getValue();
        }
        List<LoraLayer> layers = new ArrayList<>();
        for (Map.Entry<String, LoraTensor[]> e : byModule.entrySet()) {
            String module = e.getKey();
            LoraTensor down = e.getValue()[0];
            LoraTensor up = e.getValue()[1];
            if (down == null || up == null) {
                throw new InvalidRequestException("LoRA file " + file + ": layer " + module + " has "
                        + (down == null ? "lora_B but no lora_A" : "lora_A but no lora_B"));
            }
            requireMatrix(down);
            requireMatrix(up);
            if (up.cols() != down.rows()) {
                throw new InvalidRequestException("LoRA file " + file + ": layer " + module + " has lora_A "
                        + java.util.Arrays.toString(down.shape()) + " and lora_B "
                        + java.util.Arrays.toString(up.shape())
                        + "; expected lora_B's columns to equal lora_A's rows (the rank)");
            }
            if (down.rows() == 0) {
                throw new InvalidRequestException("LoRA file " + file + ": layer " + module + " has rank 0");
            }
            layers.add(new LoraLayer(
                    module,
                    down.rows(),
                    down.cols(),
                    up.rows(),
                    down.values(),
                    up.values(),
                    scale.of(module, down.rows())));
        }
        return layers;
    }

    static LoraTensor require(LoraTensor t, String key) {
        if (t == null) {
            throw bad("the key " + key + " is missing (each lora_down needs its lora_up)");
        }
        return t;
    }

    static LoraTensor requireMatrix(LoraTensor t) {
        if (!t.isMatrix()) {
            throw bad(t.name() + " has shape " + java.util.Arrays.toString(t.shape()) + "; a LoRA factor is 2-D");
        }
        return t;
    }

    static double scalar(LoraTensor t) {
        if (t.values().length != 1) {
            throw bad(t.name() + " has shape " + java.util.Arrays.toString(t.shape()) + "; alpha is one number");
        }
        return t.values()[0];
    }

    /** {@code torch.chunk(t, n, dim=0)} for a row count divisible by n; refused otherwise. */
    static LoraTensor[] chunkRows(LoraTensor t, int n) {
        requireMatrix(t);
        if (t.rows() % n != 0) {
            throw bad(t.name() + " has " + t.rows() + " rows; a fused q/k/v needs a multiple of " + n);
        }
        int each = t.rows() / n;
        LoraTensor[] out = new LoraTensor[n];
        for (int i = 0; i < n; i++) {
            out[i] = t.rows(i * each, (i + 1) * each);
        }
        return out;
    }

    static InvalidRequestException bad(String what) {
        return new InvalidRequestException("LoRA file: " + what);
    }

    private static String sha256(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            byte[] buf = new byte[1 << 16];
            int n;
            while ((n = in.read(buf)) > 0) {
                md.update(buf, 0, n);
            }
            return HexFormat.of().formatHex(md.digest());
        } catch (IOException e) {
            throw new InvalidRequestException("LoRA file " + file + " cannot be read: " + e.getMessage(), e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }
}
