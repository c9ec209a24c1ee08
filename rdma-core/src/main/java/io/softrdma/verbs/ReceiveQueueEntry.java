package io.softrdma.verbs;

/**
 * The engine's slot for one posted receive. Preallocated and reused.
 *
 * <p>Note: event loop only.
 */
final class ReceiveQueueEntry {
    ReceiveWorkRequest wr;
    long capacity;

    void reset(ReceiveWorkRequest request) {
        wr = request;
        capacity = request.capacity();
    }
}
