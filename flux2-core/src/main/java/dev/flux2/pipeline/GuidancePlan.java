package dev.flux2.pipeline;

/**
 * How the velocity is guided.
 *
 * @param scale the guidance scale in effect (1 for distilled models, which ignore it)
 * @param classifierFree whether true classifier-free guidance runs: two transformer passes per step combined as
 *     {@code v_neg + scale·(v_pos − v_neg)}
 */
record GuidancePlan(double scale, boolean classifierFree) {}
