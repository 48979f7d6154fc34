package dev.flux2.server;

/**
 * Which denoiser steps become OpenAI's partial images. OpenAI documents {@code partial_images} 0–3 and that fewer may
 * arrive "if the full image is generated more quickly"; it does not say which steps. Here the k-th of p partial images
 * (k = 0 … p−1) follows step {@code max(1, round((k + 1)·n / (p + 1)))} of the n steps an image runs, spread evenly
 * over the schedule; steps at or after the last are dropped, and a step chosen twice counts once, so a short schedule
 * gives fewer partial images (4 steps: p = 1 → step 2; p = 2 → steps 1, 3; p = 3 → steps 1, 2, 3). Stateless.
 */
final class PartialImagePlan {
    /** OpenAI's largest {@code partial_images}. */
    static final int MAX_PARTIAL_IMAGES = 3;

    private PartialImagePlan() {}

    /**
     * @param step steps completed (1 … n−1)
     * @param steps the steps the image runs (n)
     * @param partials partial images asked for (p)
     * @return the partial image's index (0-based, counting only the steps that are kept), or −1 when the step gives
     *     none
     */
    static int indexAfter(int step, int steps, int partials) {
        int index = 0;
        int previous = 0;
        for (int k = 0; k < partials; k++) {
            int at = Math.max(1, (int) Math.round((k + 1) * (double) steps / (partials + 1)));
            if (at >= steps || at == previous) {
                continue;
            }
            if (at == step) {
                return index;
            }
            previous = at;
            index++;
        }
        return -1;
    }
}
