package dev.flux2.springai.autoconfigure;

import dev.flux2.api.MemoryPolicy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The FLUX.2 image model's settings, {@code spring.ai.flux2.image.*}: the model, the defaults of every call, the hub
 * cache, memory policy, execution provider, backend options and limits. Unset values keep the library's defaults.
 */
@ConfigurationProperties(Flux2ImageProperties.CONFIG_PREFIX)
public class Flux2ImageProperties {
    /** The prefix of these properties. */
    public static final String CONFIG_PREFIX = "spring.ai.flux2.image";

    /** The model: a bundle folder, or a repo id (owner/name or owner/name@revision) resolved through the hub cache. */
    private String model;

    /** The memory policy: AUTO, SEQUENTIAL or RESIDENT (default AUTO). */
    private MemoryPolicy memoryPolicy;

    /** Execution providers to try before CPU, comma-separated (cpu, cuda, coreml, ...; default CPU only). */
    private String provider;

    /** Further backend options (threads, cpu_tuned, fused, ...), as Flux2Pipeline.Builder.backendOption takes them. */
    private Map<String, String> backendOptions = new LinkedHashMap<>();

    /** Whether http(s) image URLs attached to prompts are fetched (default false: bytes, base64, data:). */
    private boolean allowRemoteImages;

    /** The folders whose files file: image URLs may name (default none: file: URLs are refused). */
    private List<Path> localImageFolders = new ArrayList<>();

    private final Options options = new Options();

    private final Hub hub = new Hub();

    private final Limits limits = new Limits();

    /** @return the model folder or repo id */
    public String getModel() {
        return model;
    }

    /** @param model the model folder or repo id */
    public void setModel(String model) {
        this.model = model;
    }

    /** @return the memory policy, or null for the default */
    public MemoryPolicy getMemoryPolicy() {
        return memoryPolicy;
    }

    /** @param memoryPolicy the memory policy */
    public void setMemoryPolicy(MemoryPolicy memoryPolicy) {
        this.memoryPolicy = memoryPolicy;
    }

    /** @return the execution providers, comma-separated, or null */
    public String getProvider() {
        return provider;
    }

    /** @param provider the execution providers, comma-separated */
    public void setProvider(String provider) {
        this.provider = provider;
    }

    /** @return the further backend options */
    public Map<String, String> getBackendOptions() {
        return backendOptions;
    }

    /** @param backendOptions the further backend options */
    public void setBackendOptions(Map<String, String> backendOptions) {
        this.backendOptions = backendOptions;
    }

    /** @return whether remote image URLs are fetched */
    public boolean isAllowRemoteImages() {
        return allowRemoteImages;
    }

    /** @param allowRemoteImages whether remote image URLs are fetched */
    public void setAllowRemoteImages(boolean allowRemoteImages) {
        this.allowRemoteImages = allowRemoteImages;
    }

    /** @return the folders whose files file: image URLs may name */
    public List<Path> getLocalImageFolders() {
        return localImageFolders;
    }

    /** @param localImageFolders the folders whose files file: image URLs may name */
    public void setLocalImageFolders(List<Path> localImageFolders) {
        this.localImageFolders = localImageFolders;
    }

    /** @return the defaults of every call */
    public Options getOptions() {
        return options;
    }

    /** @return the hub settings */
    public Hub getHub() {
        return hub;
    }

    /** @return the request limits */
    public Limits getLimits() {
        return limits;
    }

    /** The defaults of every call, {@code spring.ai.flux2.image.options.*}; a call's own options win. */
    public static class Options {
        /** Images per call. */
        private Integer n;

        /** Output width in pixels, a multiple of 16 (default: the model's). */
        private Integer width;

        /** Output height in pixels, a multiple of 16 (default: the model's). */
        private Integer height;

        /** Denoising steps (default: the model's). */
        private Integer steps;

        /** Seed; image k of a call uses seed + k (default: random per call). */
        private Long seed;

        /** Classifier-free guidance scale, used by base models only (default: the model's). */
        private Double guidance;

        /** @return images per call */
        public Integer getN() {
            return n;
        }

        /** @param n images per call */
        public void setN(Integer n) {
            this.n = n;
        }

        /** @return the width */
        public Integer getWidth() {
            return width;
        }

        /** @param width the width */
        public void setWidth(Integer width) {
            this.width = width;
        }

        /** @return the height */
        public Integer getHeight() {
            return height;
        }

        /** @param height the height */
        public void setHeight(Integer height) {
            this.height = height;
        }

        /** @return the steps */
        public Integer getSteps() {
            return steps;
        }

        /** @param steps the steps */
        public void setSteps(Integer steps) {
            this.steps = steps;
        }

        /** @return the seed */
        public Long getSeed() {
            return seed;
        }

        /** @param seed the seed */
        public void setSeed(Long seed) {
            this.seed = seed;
        }

        /** @return the guidance */
        public Double getGuidance() {
            return guidance;
        }

        /** @param guidance the guidance */
        public void setGuidance(Double guidance) {
            this.guidance = guidance;
        }
    }

    /** The hub cache that repo ids resolve through, {@code spring.ai.flux2.image.hub.*}. */
    public static class Hub {
        /** The hub cache folder (default: HF_HUB_CACHE, HF_HOME/hub or ~/.cache/huggingface/hub). */
        private Path cacheDir;

        /** Whether to use only what the cache holds, never the network (default: HF_HUB_OFFLINE, else false). */
        private Boolean offline;

        /** @return the cache folder, or null */
        public Path getCacheDir() {
            return cacheDir;
        }

        /** @param cacheDir the cache folder */
        public void setCacheDir(Path cacheDir) {
            this.cacheDir = cacheDir;
        }

        /** @return whether offline, or null */
        public Boolean getOffline() {
            return offline;
        }

        /** @param offline whether offline */
        public void setOffline(Boolean offline) {
            this.offline = offline;
        }
    }

    /** Request and input-image limits, {@code spring.ai.flux2.image.limits.*} (default: GenerationLimits.defaults()). */
    public static class Limits {
        /** Most output pixels (width x height). */
        private Long maxPixels;

        /** Longest output side. */
        private Integer maxSide;

        /** Most denoising steps. */
        private Integer maxSteps;

        /** Most images per call. */
        private Integer maxImages;

        /** Most reference images per call. */
        private Integer maxReferences;

        /** Most pixels of an input image. */
        private Long maxInputPixels;

        /** Longest side of an input image. */
        private Integer maxInputSide;

        /** @return most output pixels */
        public Long getMaxPixels() {
            return maxPixels;
        }

        /** @param maxPixels most output pixels */
        public void setMaxPixels(Long maxPixels) {
            this.maxPixels = maxPixels;
        }

        /** @return longest output side */
        public Integer getMaxSide() {
            return maxSide;
        }

        /** @param maxSide longest output side */
        public void setMaxSide(Integer maxSide) {
            this.maxSide = maxSide;
        }

        /** @return most steps */
        public Integer getMaxSteps() {
            return maxSteps;
        }

        /** @param maxSteps most steps */
        public void setMaxSteps(Integer maxSteps) {
            this.maxSteps = maxSteps;
        }

        /** @return most images per call */
        public Integer getMaxImages() {
            return maxImages;
        }

        /** @param maxImages most images per call */
        public void setMaxImages(Integer maxImages) {
            this.maxImages = maxImages;
        }

        /** @return most reference images */
        public Integer getMaxReferences() {
            return maxReferences;
        }

        /** @param maxReferences most reference images */
        public void setMaxReferences(Integer maxReferences) {
            this.maxReferences = maxReferences;
        }

        /** @return most input pixels */
        public Long getMaxInputPixels() {
            return maxInputPixels;
        }

        /** @param maxInputPixels most input pixels */
        public void setMaxInputPixels(Long maxInputPixels) {
            this.maxInputPixels = maxInputPixels;
        }

        /** @return longest input side */
        public Integer getMaxInputSide() {
            return maxInputSide;
        }

        /** @param maxInputSide longest input side */
        public void setMaxInputSide(Integer maxInputSide) {
            this.maxInputSide = maxInputSide;
        }
    }
}
