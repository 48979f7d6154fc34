/**
 * The reliability suite of the core (issue #11), one class per failure class: {@link dev.flux2.reliability.LimitsTest}
 * (no resource limits), {@link dev.flux2.reliability.NonFiniteDetectionTest} (wrong output that looks like success),
 * {@link dev.flux2.reliability.ImageDecodingTest} (images decoded wrongly) and
 * {@link dev.flux2.reliability.InitImageInfluenceTest} (an init image that does nothing). The CLI, service, poisoned
 * bundle and download classes are in {@code flux2-cli}'s {@code dev.flux2.cli.reliability}.
 */
package dev.flux2.reliability;
