/**
 * A small HTTP image service on the JDK HttpServer ({@link dev.flux2.server.ImageService}): one shared
 * pipeline, a bounded queue (429), per-request timeouts that cancel the generation (504), and a health endpoint.
 */
package dev.flux2.server;
