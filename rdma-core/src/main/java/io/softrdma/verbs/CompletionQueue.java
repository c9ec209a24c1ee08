package io.softrdma.verbs;

import java.time.Duration;

/**
 * Where work requests report their outcome. One or more queue pairs complete into it (their send
 * and/or receive side); the application polls it, waits on it, or is called when it has entries.
 *
 * <p>Thread safety: completions are added from event loops; polling, waiting and notification
 * requests may come from any thread, one consumer at a time.
 */
public interface CompletionQueue {
    /** Entries the queue holds; queue pairs reserve their queue depths out of it. */
    int capacity();

    /** Completions waiting to be polled. */
    int size();

    /**
     * Hands at most {@code max} completions, oldest first, to {@code handler} and returns how many. The
     * {@link WorkCompletion} passed is a view valid only during the call: nothing is allocated.
     */
    int poll(Handler handler, int max);

    /** The oldest completion (a copy), or null when there is none. */
    WorkCompletion poll();

    /**
     * Waits up to {@code timeout} for a completion. Blocks the calling thread, so it must not be an
     * event loop.
     *
     * @return the oldest completion (a copy), or null on timeout
     * @throws IllegalStateException when called on a Netty event-loop thread
     */
    WorkCompletion take(Duration timeout) throws InterruptedException;

    /**
     * Arms the listener for one call: on the next completion (or, with {@code solicitedOnly}, the next
     * receive of a Send with Solicited Event, or any failed completion) it is called once.
     */
    void requestNotification(boolean solicitedOnly);

    /** The listener called when an armed notification fires, on the event loop that added the completion. */
    void setListener(Listener listener);

    /**
     * Polls until the queue is empty and re-arms the notification for any completion, polling once more after
     * arming so that a completion added in between is not left waiting for a notification that already fired.
     * The usual body of a {@link Listener}: call it on the thread that consumes the queue.
     */
    default void drainAndRearm(Handler handler) {
        for (;;) {
            if (poll(handler, 64) > 0) {
                continue;
            }
            requestNotification(false);
            if (poll(handler, 64) == 0) {
                return;
            }
        }
    }

    /** Receives completions during {@link #poll(Handler, int)}. */
    @FunctionalInterface
    interface Handler {
        /** {@code completion} is valid only during this call; use {@link WorkCompletion#copy()} to keep it. */
        void onCompletion(WorkCompletion completion);
    }

    /** Called when an armed completion queue gets an entry. Runs on an event loop: it must not block. */
    @FunctionalInterface
    interface Listener {
        void onCompletionEvent(CompletionQueue queue);
    }
}
