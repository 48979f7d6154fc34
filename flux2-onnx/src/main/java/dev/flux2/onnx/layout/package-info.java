/**
 * Finds the parts of a model by their graphs (docs/bundle-format.md §4, §14): the graphs of a folder are recognised by
 * their signatures ({@link dev.flux2.onnx.layout.GraphClassifier}), a {@code flux2-config.json} names them when the
 * folder has one, and parts may be taken from other folders or files; {@link dev.flux2.onnx.layout.LayoutResolver}
 * puts the parts together into the {@link dev.flux2.onnx.config.BundleConfig} the backend runs, after checking that
 * they fit each other.
 */
package dev.flux2.onnx.layout;
