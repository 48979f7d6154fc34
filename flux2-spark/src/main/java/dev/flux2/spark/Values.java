package dev.flux2.spark;

/** Shows values in one-line messages. */
final class Values {
    private static final int MAX_SHOWN = 80;

    private Values() {}

    /**
     * @param value a value from the input, or null
     * @return it in double quotes, control characters escaped, cut after 80 characters; {@code null} as such
     */
    static String quote(Object value) {
        if (value == null) {
            return "null";
        }
        String s = value.toString();
        StringBuilder out = new StringBuilder(Math.min(s.length(), MAX_SHOWN) + 8).append('"');
        for (int i = 0; i < s.length() && i < MAX_SHOWN; i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20 || c == 0x7f) {
                out.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        if (s.length() > MAX_SHOWN) {
            out.append("…");
        }
        return out.append('"').toString();
    }

    /**
     * @param error a failure
     * @return its message on one line (multi-line runtime messages joined with {@code |}), or its class name
     */
    static String oneLine(Throwable error) {
        String m = error.getMessage();
        String text = m == null || m.isBlank() ? error.getClass().getName() : m;
        return text.replaceAll("\\s*\\R\\s*", " | ").trim();
    }
}
