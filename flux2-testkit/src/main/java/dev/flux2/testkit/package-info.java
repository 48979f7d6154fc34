/**
 * Test support for flux2-java (never a runtime dependency of the product): writes miniature synthetic FLUX.2
 * [klein] ONNX bundles with the real file names, graph names, tensor names, dtypes and ranks
 * ({@link dev.flux2.testkit.SyntheticBundleWriter}), and evaluates exactly the math those graphs compute in pure
 * Java ({@link dev.flux2.testkit.SyntheticReference}), independently of the code under test.
 *
 * <p>The reference regenerates every weight from the spec's seed; it never reads the written files back, so a
 * packing bug in the writer shows up as a disagreement between ONNX Runtime and the reference.
 */
package dev.flux2.testkit;
