/** The minimal embedding example shown in the README. */
package dev.flux2.examples.embedding;
