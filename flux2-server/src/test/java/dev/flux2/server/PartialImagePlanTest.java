package dev.flux2.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which steps become partial images: spread over the schedule, never the last step, fewer on short schedules. */
class PartialImagePlanTest {
    /** @return the steps that give a partial image, in order of their index */
    private static List<Integer> steps(int n, int p) {
        List<Integer> steps = new ArrayList<>();
        for (int step = 1; step < n; step++) {
            int index = PartialImagePlan.indexAfter(step, n, p);
            if (index >= 0) {
                assertEquals(steps.size(), index, "indices count up from 0 in step order");
                steps.add(step);
            }
        }
        return steps;
    }

    @Test
    void theModelsFourSteps() {
        assertEquals(List.of(), steps(4, 0));
        assertEquals(List.of(2), steps(4, 1));
        assertEquals(List.of(1, 3), steps(4, 2));
        assertEquals(List.of(1, 2, 3), steps(4, 3));
    }

    @Test
    void longAndShortSchedules() {
        assertEquals(List.of(13, 25, 38), steps(50, 3));
        assertEquals(List.of(2, 4), steps(6, 2));
        assertEquals(List.of(1), steps(2, 3), "one step before the last: one partial image");
        assertEquals(List.of(), steps(1, 3), "a one-step image has none");
    }

    @Test
    void theLastStepNeverGivesOne() {
        for (int n = 1; n <= 60; n++) {
            for (int p = 0; p <= 3; p++) {
                assertEquals(-1, PartialImagePlan.indexAfter(n, n, p));
                assertEquals(Math.min(p, n - 1), steps(n, p).size(), n + " steps, " + p + " partial images");
            }
        }
    }
}
