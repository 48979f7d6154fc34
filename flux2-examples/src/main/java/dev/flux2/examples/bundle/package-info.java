/** Reading a bundle's {@code flux2-config.json} for CLI defaults and download planning. */
package dev.flux2.examples.bundle;
