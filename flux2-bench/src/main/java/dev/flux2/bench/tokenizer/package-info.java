/** Tokenizer benchmark: template rendering, DJL encoding, padding and mask. */
package dev.flux2.bench.tokenizer;
