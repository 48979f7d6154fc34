package dev.flux2.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/**
 * Whether progress bars are drawn on stderr: only on a terminal. Into a file or a pipe their frames, joined by
 * {@code \r}, are noise (and the last one came twice). {@code --no-progress} turns them off anywhere;
 * {@value #ENV}{@code =on} draws them into a file or pipe too, {@code off} never, {@code auto} (the default) as
 * stderr is. Stateless.
 */
final class ProgressSwitch {
    /** The environment variable that forces bars on or off. */
    static final String ENV = "FLUX2_PROGRESS";

    private ProgressSwitch() {}

    /**
     * @param requested false when the command's {@code --no-progress} is given
     * @return whether to draw progress bars
     */
    static boolean draw(boolean requested) {
        return draw(requested, System.getenv(), stderrIsTerminal());
    }

    /**
     * @param requested false when {@code --no-progress} is given
     * @param env the environment
     * @param terminal whether stderr is a terminal
     * @return whether to draw progress bars
     * @throws IllegalArgumentException when {@value #ENV} holds another value than on, off or auto
     */
    static boolean draw(boolean requested, Map<String, String> env, boolean terminal) {
        if (!requested) {
            return false;
        }
        String mode = env.getOrDefault(ENV, "auto").trim().toLowerCase(Locale.ROOT);
        return switch (mode) {
            case "on" -> true;
            case "off" -> false;
            case "auto", "" -> terminal;
            default -> throw new IllegalArgumentException(ENV + " must be on, off or auto, got '" + env.get(ENV) + "'");
        };
    }

    /**
     * isatty(2): on Linux where {@code /proc/self/fd/2} leads ({@code /dev/pts/N}, {@code /dev/ttyN}, {@code
     * /dev/console}); elsewhere the JDK's console, which exists only when stdin and stdout are terminals (stderr
     * usually goes where stdout goes).
     *
     * @return whether stderr is a terminal
     */
    static boolean stderrIsTerminal() {
        Path fd = Path.of("/proc/self/fd/2");
        if (Files.isSymbolicLink(fd)) {
            try {
                return isTerminalDevice(Files.readSymbolicLink(fd).toString());
            } catch (IOException | UnsupportedOperationException e) {
                return false;
            }
        }
        return System.console() != null;
    }

    /**
     * @param target where stderr's descriptor leads
     * @return whether it is a terminal device
     */
    static boolean isTerminalDevice(String target) {
        return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty") || target.equals("/dev/console");
    }
}
