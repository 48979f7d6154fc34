/**
 * flux2-server: an image server on Jetty 12 sharing one pipeline ({@link dev.flux2.server.ImageService}, configured
 * by {@link dev.flux2.server.ServiceConfig}). It speaks OpenAI's Images API ({@code /v1/images/generations},
 * {@code /v1/images/edits}, {@code /v1/models}, OpenAI's error shape) beside the PNG shortcut {@code /v1/images},
 * with a bounded queue (429), per-request timeouts that cancel the generation (504), an API key, a guard against
 * cross-site and DNS-rebinding requests, {@code /health} and Prometheus {@code /metrics}. See docs/server.md.
 */
package dev.flux2.server;
