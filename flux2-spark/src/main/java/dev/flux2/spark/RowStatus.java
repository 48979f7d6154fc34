package dev.flux2.spark;

/** What happened to one request row: the {@code status} column of the results. */
public enum RowStatus {
    /** The image was generated and written by this run. */
    OK("ok"),
    /**
     * A complete image of the same request was already at the row's path (written by an earlier attempt of the
     * task, or an earlier run into the same output) and was kept; nothing was generated, so timings are null.
     */
    SKIPPED("skipped"),
    /** The row could not be generated; the {@code error} column says why. */
    FAILED("failed");

    private final String value;

    RowStatus(String value) {
        this.value = value;
    }

    /** @return the value in the {@code status} column */
    public String value() {
        return value;
    }
}
