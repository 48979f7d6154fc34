/**
 * What is in a model folder, and the one place that reads it (docs/bundle-format.md): {@code flux2-config.json}
 * read into records ({@link dev.flux2.onnx.bundle.BundleConfigReader}) and every file it names checked on disk
 * ({@link dev.flux2.onnx.bundle.BundleValidator}); the parts found by their graphs when there is no config, or taken
 * from other folders or files ({@link dev.flux2.onnx.bundle.GraphClassifier}, put together and checked to fit by
 * {@link dev.flux2.onnx.bundle.LayoutResolver}); every graph's signature read from its {@code .onnx} header without
 * loading weights ({@link dev.flux2.onnx.bundle.OnnxHeaderReader}, with the external-data files each graph reads,
 * {@link dev.flux2.onnx.bundle.ExternalDataCheck}) and checked against the I/O contract of its part
 * ({@link dev.flux2.onnx.bundle.GraphContracts}); and the whole, loaded once ({@link dev.flux2.onnx.bundle.OnnxBundle})
 * with what the API reports of it ({@link dev.flux2.onnx.bundle.ModelInfoFactory},
 * {@link dev.flux2.onnx.bundle.RoleMappings}).
 *
 * <p>The graphs are authoritative: element types are the ones each graph declares
 * ({@link dev.flux2.onnx.bundle.TypeSets} lists what is accepted), and tensor names are resolved from the graphs by
 * the names known exports use, with the config's lists as hints.
 *
 * <p>Names: a <em>part</em> is one piece of a model that one graph (or chain of graphs) computes — tokenizer, text
 * encoder, transformer, VAE decoder, VAE encoder — and is named by its role ({@code dev.flux2.api.ModelRole} in the
 * API). Inside this package the graph of a part is keyed by its config key ({@link dev.flux2.onnx.bundle.GraphKeys})
 * and described by its config entry ({@link dev.flux2.onnx.bundle.ModelEntry}); docs/architecture.md §5 lists the
 * names.
 */
package dev.flux2.onnx.bundle;
