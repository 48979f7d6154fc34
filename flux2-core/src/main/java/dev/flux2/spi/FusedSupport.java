package dev.flux2.spi;

/**
 * Whether a fused multi-step denoiser can run a given schedule, and if not, why (logged by the pipeline).
 *
 * @param available whether {@link DenoiserSession#denoiseFused} may be called
 * @param reason why not (or which convention will be used)
 */
public record FusedSupport(boolean available, String reason) {
    /** @param reason why no fused graph can be used @return an unavailable answer */
    public static FusedSupport unavailable(String reason) {
        return new FusedSupport(false, reason);
    }

    /** @param convention the convention that will be used @return an available answer */
    public static FusedSupport available(String convention) {
        return new FusedSupport(true, convention);
    }
}
