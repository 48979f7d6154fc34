package dev.flux2.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Issue #33: progress bars were drawn into files and pipes. They are drawn on a terminal only, unless forced. */
class ProgressSwitchTest {
    @Test
    void barsFollowStderrUnlessForced() {
        assertTrue(ProgressSwitch.draw(true, Map.of(), true), "a terminal");
        assertFalse(ProgressSwitch.draw(true, Map.of(), false), "a file or a pipe");
        assertTrue(ProgressSwitch.draw(true, Map.of(ProgressSwitch.ENV, "on"), false), "forced on");
        assertFalse(ProgressSwitch.draw(true, Map.of(ProgressSwitch.ENV, "OFF"), true), "forced off");
        assertTrue(ProgressSwitch.draw(true, Map.of(ProgressSwitch.ENV, "auto"), true));
        assertFalse(ProgressSwitch.draw(false, Map.of(ProgressSwitch.ENV, "on"), true), "--no-progress wins");
    }

    @Test
    void anotherValueIsRefusedByName() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> ProgressSwitch.draw(true, Map.of(ProgressSwitch.ENV, "yes"), true));
        assertEquals("FLUX2_PROGRESS must be on, off or auto, got 'yes'", e.getMessage());
    }

    @Test
    void terminalDevicesAreToldFromFilesAndPipes() {
        assertTrue(ProgressSwitch.isTerminalDevice("/dev/pts/3"));
        assertTrue(ProgressSwitch.isTerminalDevice("/dev/tty1"));
        assertFalse(ProgressSwitch.isTerminalDevice("pipe:[123456]"));
        assertFalse(ProgressSwitch.isTerminalDevice("/tmp/run.log"));
        assertFalse(ProgressSwitch.isTerminalDevice("/dev/null"));
    }

    @Test
    void theTestsOwnStderrIsNoTerminal() {
        // Surefire captures the forked JVM's stderr through a pipe or a file.
        assertFalse(ProgressSwitch.stderrIsTerminal());
    }
}
