/**
 * ONNX Runtime sessions: the shared environment, session options and execution providers
 * ({@link dev.flux2.onnx.session.SessionFactory}, {@link dev.flux2.onnx.session.ProviderSelector}), a session
 * wrapper that is closed exactly once and never during a run ({@link dev.flux2.onnx.session.ManagedSession}), the
 * memory policy ({@link dev.flux2.onnx.session.SessionCache}, which returns freed native memory to the OS before a
 * SEQUENTIAL session is created: {@link dev.flux2.onnx.session.NativeHeapTrim}), and the time spent creating and
 * closing sessions ({@link dev.flux2.onnx.session.SessionLifecycleClock}).
 */
package dev.flux2.onnx.session;
