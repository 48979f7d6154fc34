/**
 * The {@code flux2} command line ({@link dev.flux2.cli.Flux2Cli}): generate, tokenize, info and download,
 * built on the public API only.
 */
package dev.flux2.cli;
