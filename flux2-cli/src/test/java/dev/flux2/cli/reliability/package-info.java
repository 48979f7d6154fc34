/**
 * The reliability suite of the applications (issue #11), one class per failure class: {@link
 * dev.flux2.cli.reliability.LateErrorsTest} (errors that come too late or say too little, and limits checked
 * before the model loads), {@link dev.flux2.cli.reliability.ModelFilesTest} (poisoned and corrupted weights,
 * bounded configs, {@code flux2 verify} and {@code flux2 info}), {@link
 * dev.flux2.cli.reliability.DownloadErrorsTest} (downloads that stay broken). The HTTP server's classes are in
 * flux2-server's {@code dev.flux2.server.reliability}; the core's in flux2-core's {@code dev.flux2.reliability}.
 */
package dev.flux2.cli.reliability;
