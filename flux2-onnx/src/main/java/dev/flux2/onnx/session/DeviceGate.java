package dev.flux2.onnx.session;

import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtProvider;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One thread at a time touches a GPU device. The WebGPU provider shares one device and one command encoder between
 * every session of the process: a session created, run or closed while another session runs fails with "Command
 * encoding already finished", hangs, or (with the device errors only logged) returns a wrong image (docs/gpu.md,
 * "One thread at a time"). DirectML and CUDA are serialised the same way, as a precaution. Every session creation,
 * run and close on a device provider therefore holds the process-wide gate; on CPU the gate is open (a no-op), so
 * CPU overlaps stay as they are. Fair, so that two generating threads alternate. Thread-safe.
 */
final class DeviceGate {
    /** Providers whose sessions live on a shared device. */
    static final Set<OrtProvider> DEVICE_PROVIDERS = EnumSet.of(
            OrtProvider.WEBGPU,
            OrtProvider.DIRECT_ML,
            OrtProvider.CUDA,
            OrtProvider.TENSOR_RT,
            OrtProvider.ROCM,
            OrtProvider.MI_GRAPH_X,
            OrtProvider.CORE_ML);

    /** The gate of CPU-only sessions: open. */
    static final DeviceGate OPEN = new DeviceGate(null);

    private static final DeviceGate PROCESS = new DeviceGate(new ReentrantLock(true));

    private final ReentrantLock lock;

    private DeviceGate(ReentrantLock lock) {
        this.lock = lock;
    }

    /**
     * @param providers the providers of a session
     * @return the process-wide gate when one of them lives on a device, else the open gate
     */
    static DeviceGate of(List<OrtProvider> providers) {
        return usesDevice(providers) ? PROCESS : OPEN;
    }

    /** @return whether one of the providers lives on a device */
    static boolean usesDevice(List<OrtProvider> providers) {
        return providers.stream().anyMatch(DEVICE_PROVIDERS::contains);
    }

    /** @return whether this gate serialises (false for CPU) */
    boolean serialises() {
        return lock != null;
    }

    /** An ONNX Runtime call. */
    @FunctionalInterface
    interface OrtCall<T> {
        /**
         * @return the call's result
         * @throws OrtException when ONNX Runtime fails
         */
        T call() throws OrtException;
    }

    /**
     * Runs the call holding the gate (interruptibly: a cancelled generation waiting for the device stops waiting).
     *
     * @param call the call
     * @return its result
     * @throws OrtException when the call fails
     * @throws InterruptedException when interrupted while waiting for the device
     */
    <T> T call(OrtCall<T> call) throws OrtException, InterruptedException {
        if (lock == null) {
            return call.call();
        }
        lock.lockInterruptibly();
        try {
            return call.call();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Runs the call holding the gate, waiting uninterruptibly (closing must not be skipped).
     *
     * @param call the call
     * @return its result
     * @throws OrtException when the call fails
     */
    <T> T callUninterruptibly(OrtCall<T> call) throws OrtException {
        if (lock == null) {
            return call.call();
        }
        lock.lock();
        try {
            return call.call();
        } finally {
            lock.unlock();
        }
    }
}
