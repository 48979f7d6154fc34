package dev.flux2.cli.launcher;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The program {@link LauncherSignalsTest} puts in place of the CLI jar: writes its pid to the file named by its
 * first argument, then exits 0 at once ({@code exit}) or sleeps until a signal ends it ({@code sleep}).
 */
public final class Sleeper {
    private Sleeper() {}

    /**
     * @param args the pid file and {@code exit} or {@code sleep}
     * @throws Exception when the pid file cannot be written
     */
    public static void main(String[] args) throws Exception {
        Path pidFile = Path.of(args[0]);
        Path tmp = pidFile.resolveSibling(pidFile.getFileName() + ".part");
        Files.writeString(tmp, Long.toString(ProcessHandle.current().pid()));
        Files.move(tmp, pidFile);
        if (args[1].equals("sleep")) {
            Thread.sleep(600_000);
        }
    }
}
