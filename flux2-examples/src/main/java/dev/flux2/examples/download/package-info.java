/**
 * Downloading a FLUX.2 ONNX bundle from Hugging Face over HTTPS: resumable transfers, size checks against the
 * bundle config and, for pinned bundles, BLAKE3 digests.
 */
package dev.flux2.examples.download;
