/**
 * Output files of the command line: the format chosen by the extension ({@code ImageFormat}), PNG through
 * {@link dev.flux2.api.PngFiles} and JPEG ({@code JpegMetadataWriter}), written atomically ({@code ImageFileWriter}).
 */
package dev.flux2.examples.image;
