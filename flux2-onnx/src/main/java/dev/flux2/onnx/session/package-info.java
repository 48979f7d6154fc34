/**
 * ONNX Runtime sessions: the shared environment, session options and execution providers
 * ({@link dev.flux2.onnx.session.SessionFactory}, {@link dev.flux2.onnx.session.ProviderSelector}), a session
 * wrapper that is closed exactly once and never during a run ({@link dev.flux2.onnx.session.ManagedSession}), and
 * the memory policy ({@link dev.flux2.onnx.session.SessionCache}).
 */
package dev.flux2.onnx.session;
