/**
 * Models by name. {@link dev.flux2.hub.ModelHub} resolves a Hugging Face repository id to a verified local folder
 * through the shared hub cache ({@code HF_HUB_CACHE}, else {@code HF_HOME/hub}, else
 * {@code ~/.cache/huggingface/hub}, laid out as {@code huggingface_hub} lays it out), downloads into a plain
 * folder, or verifies what is on disk; {@link dev.flux2.hub.HubModelResolver} plugs it into
 * {@code Flux2Pipeline.builder().model(String)}.
 */
package dev.flux2.hub;
