package dev.flux2.image;

/**
 * Pillow's resampling filters ({@code libImaging/Resample.c}): the weight function and its support at scale 1.
 * Only the ones the reference pipelines use are here.
 */
enum PillowFilter {
    /** {@code Image.LANCZOS}: Lanczos-3, the diffusers image processors' resample. */
    LANCZOS(3.0) {
        @Override
        double weight(double x) {
            if (-3.0 <= x && x < 3.0) {
                return sinc(x) * sinc(x / 3);
            }
            return 0.0;
        }
    },
    /** {@code Image.BICUBIC}, a = −0.5: what {@code Image.resize} uses when no resample is passed. */
    BICUBIC(2.0) {
        @Override
        double weight(double x) {
            double a = -0.5;
            double v = Math.abs(x);
            if (v < 1.0) {
                return ((a + 2.0) * v - (a + 3.0)) * v * v + 1;
            }
            if (v < 2.0) {
                return (((v - 5) * v + 8) * v - 4) * a;
            }
            return 0.0;
        }
    };

    private final double support;

    PillowFilter(double support) {
        this.support = support;
    }

    /** @return the filter's support at scale 1 */
    double support() {
        return support;
    }

    /**
     * @param x the distance from the sample centre, in source pixels divided by the filter scale
     * @return the unnormalised weight
     */
    abstract double weight(double x);

    private static double sinc(double x) {
        if (x == 0.0) {
            return 1.0;
        }
        double px = x * Math.PI;
        return StrictMath.sin(px) / px;
    }
}
