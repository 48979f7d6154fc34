/**
 * Small programs that embed flux2-java, each a {@code main} of a few lines: the minimal text-to-image program the
 * README shows ({@link dev.flux2.examples.embedding.MinimalExample}), image-to-image
 * ({@link dev.flux2.examples.embedding.ImageToImageExample}), reference images
 * ({@link dev.flux2.examples.embedding.ReferencesExample}) and the HTTP service inside an application
 * ({@link dev.flux2.examples.embedding.ServerExample}). The test command runs every one on a synthetic bundle.
 *
 * <p>To run one: {@code ./mvnw -q -B -pl flux2-cli,flux2-examples -am package -DskipTests}, then
 * {@code java -cp flux2-cli/target/flux2.jar:flux2-examples/target/flux2-examples-0.1.0-SNAPSHOT.jar
 * dev.flux2.examples.embedding.MinimalExample MODEL_DIR "a red fox" fox.png} (CLASSPATH in the other examples'
 * comments): the CLI's shaded jar holds the libraries, the server and the native runtimes.
 */
package dev.flux2.examples.embedding;
