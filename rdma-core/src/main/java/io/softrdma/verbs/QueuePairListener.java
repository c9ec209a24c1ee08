package io.softrdma.verbs;

import io.softrdma.rdmap.TerminateException;

/**
 * The asynchronous events of a queue pair. Called on the queue pair's event loop: implementations must
 * not block.
 */
public interface QueuePairListener {
    /** The stream is in RDMA mode: sends may be posted. */
    default void onEstablished(QueuePair queuePair) {
    }

    /** A Terminate was sent ({@link TerminateException#remote()} false) or received. */
    default void onTerminate(QueuePair queuePair, TerminateException terminate) {
    }

    /** The queue pair reached ERROR; {@code cause} is null after a graceful close. */
    default void onClosed(QueuePair queuePair, Throwable cause) {
    }
}
