package dev.flux2.spark;

import java.util.Map;
import java.util.Objects;

/**
 * Whether an existing image was made for a row's request, from its PNG text entries: the same prompt and seed, and
 * the same size, steps, guidance and strength where the row sets them. (Init and reference images are not recorded
 * in the PNG, so they are not compared.)
 */
final class SameRequest {
    private SameRequest() {}

    /**
     * @param text the PNG's text entries
     * @param request the row's request
     * @return whether the image answers that request
     */
    static boolean matches(Map<String, String> text, RowRequest request) {
        return Objects.equals(text.get("prompt"), request.prompt())
                && Objects.equals(text.get("seed"), Long.toString(request.effectiveSeed()))
                && sameInt(text.get("width"), request.width())
                && sameInt(text.get("height"), request.height())
                && sameInt(text.get("steps"), request.steps())
                && sameDouble(text.get("guidance"), request.guidance())
                && sameDouble(text.get("strength"), request.strength());
    }

    private static boolean sameInt(String stored, Integer requested) {
        return requested == null || Objects.equals(stored, requested.toString());
    }

    private static boolean sameDouble(String stored, Double requested) {
        if (requested == null) {
            return true;
        }
        try {
            return stored != null && Double.parseDouble(stored) == requested;
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
