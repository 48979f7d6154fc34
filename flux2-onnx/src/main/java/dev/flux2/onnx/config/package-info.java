/**
 * Reading {@code flux2-config.json} into records ({@link dev.flux2.onnx.config.BundleConfigReader}) and checking
 * that every file it names is on disk with the promised size ({@link dev.flux2.onnx.config.BundleValidator}).
 */
package dev.flux2.onnx.config;
