/** A Spark driver that generates a folder of images from a file of prompts with flux2-spark. */
package dev.flux2.examples.spark;
