package dev.flux2.examples.service;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.flux2.api.GenerationRequest;
import dev.flux2.api.InvalidRequestException;

/**
 * The JSON body of {@code POST /v1/images}. Unset fields take the model's defaults; unknown fields are rejected.
 *
 * <pre>{"prompt": "a red fox in the snow", "width": 512, "height": 512, "seed": 42, "steps": 4}</pre>
 *
 * {@code "size": "512x512"} may replace width and height.
 *
 * @param prompt the prompt (required)
 * @param width width in pixels, a multiple of 16
 * @param height height in pixels, a multiple of 16
 * @param size {@code "WxH"}, an alternative to width and height
 * @param seed the noise seed (random when absent; reported in the {@code X-Flux2-Seed} header)
 * @param steps denoising steps
 * @param guidance guidance scale (base models only)
 */
public record ImageRequestBody(
        @JsonProperty("prompt") String prompt,
        @JsonProperty("width") Integer width,
        @JsonProperty("height") Integer height,
        @JsonProperty("size") String size,
        @JsonProperty("seed") Long seed,
        @JsonProperty("steps") Integer steps,
        @JsonProperty("guidance") Double guidance) {

    /**
     * @return a request builder with these values (validated by its {@code build()})
     * @throws InvalidRequestException when the prompt is missing or {@code size} is malformed or contradicts
     *     width/height
     */
    public GenerationRequest.Builder toRequest() {
        if (prompt == null) {
            throw new InvalidRequestException("'prompt' is required");
        }
        GenerationRequest.Builder b = GenerationRequest.builder(prompt);
        Integer w = width;
        Integer h = height;
        if (size != null) {
            String[] parts = size.trim().toLowerCase(java.util.Locale.ROOT).split("x");
            if (parts.length != 2 || !parts[0].matches("\\d{1,5}") || !parts[1].matches("\\d{1,5}")) {
                throw new InvalidRequestException("'size' must look like 512x512, got '" + size + "'");
            }
            if (width != null || height != null) {
                throw new InvalidRequestException("give either 'size' or 'width'/'height', not both");
            }
            w = Integer.valueOf(parts[0]);
            h = Integer.valueOf(parts[1]);
        }
        if (w != null) {
            b.width(w);
        }
        if (h != null) {
            b.height(h);
        }
        if (seed != null) {
            b.seed(seed);
        }
        if (steps != null) {
            b.steps(steps);
        }
        if (guidance != null) {
            b.guidance(guidance);
        }
        return b;
    }
}
