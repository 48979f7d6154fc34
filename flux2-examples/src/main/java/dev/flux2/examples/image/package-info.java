/** Writing generated images as PNG with their generation parameters. */
package dev.flux2.examples.image;
