package dev.flux2.tokenizer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps DJL off the network: applied once, before any DJL class is initialised.
 *
 * <p>DJL 0.38.0 reads each setting from the environment first and the system property second, and it reads them
 * lazily (the flavour when its native-library loader initialises, offline mode and tracking on every call), so a
 * system property set here takes effect as long as no DJL tokenizer was loaded earlier in this JVM. A value the
 * user set, as environment variable or system property, is never overridden:
 * <ul>
 *   <li>{@code DJL_OFFLINE} / {@code -Dai.djl.offline}: offline mode. It stops the telemetry call home and forces the
 *       cpu flavour. Note that it is JVM-wide: other DJL code in the same JVM cannot download models either, unless
 *       the user sets it to {@code false}.</li>
 *   <li>{@code OPT_OUT_TRACKING}: stops the EC2-metadata and telemetry requests even when offline mode is off.</li>
 *   <li>{@code RUST_FLAVOR=cpu}: uses the cpu library bundled in the jar; without it, a host with a recent CUDA GPU
 *       makes DJL download a CUDA build of the library.</li>
 * </ul>
 */
final class DjlRuntimeDefaults {

    private static final Logger LOG = LoggerFactory.getLogger(DjlRuntimeDefaults.class);

    /** One DJL setting: the environment variable and the system property it may come from, and our default. */
    private record Setting(String environmentVariable, String systemProperty, String value) {}

    private static final Setting[] SETTINGS = {
        new Setting("DJL_OFFLINE", "ai.djl.offline", "true"),
        new Setting("OPT_OUT_TRACKING", "OPT_OUT_TRACKING", "true"),
        new Setting("RUST_FLAVOR", "RUST_FLAVOR", "cpu"),
    };

    private DjlRuntimeDefaults() {}

    /** Sets every setting the user left unset; idempotent and thread-safe (synchronised on the class). */
    static synchronized void apply() {
        for (Setting setting : SETTINGS) {
            String fromEnvironment = System.getenv(setting.environmentVariable());
            String fromProperty = System.getProperty(setting.systemProperty());
            if (fromEnvironment == null && fromProperty == null) {
                System.setProperty(setting.systemProperty(), setting.value());
                LOG.debug("Set system property {}={} so DJL stays offline", setting.systemProperty(), setting.value());
            } else {
                LOG.debug(
                        "Keeping user setting for DJL: {}={} (environment), {}={} (system property)",
                        setting.environmentVariable(),
                        fromEnvironment,
                        setting.systemProperty(),
                        fromProperty);
            }
        }
    }
}
