package io.softrdma.reactive;

import io.softrdma.cm.RpcRdmaPrivateData;

/**
 * How a session's messaging is sized (docs/protocol.md): the largest Send, what is advertised of it
 * with RFC 8797's private data, the largest message at all, and whether the peer may invalidate lent
 * regions remotely.
 *
 * <p>Thread safety: immutable.
 *
 * @param inlineSize the largest Send this side receives and sends, header included: 1024 to 262144 and
 *     a multiple of 1024 (RFC 8797 §4.2). Memory per connection: receive queue depth times this
 * @param maxMessageSize the largest message sent or taken; a larger LARGE descriptor from the peer ends
 *     the session, so a peer cannot make this side allocate more
 * @param remoteInvalidation RFC 8797's R flag: this side lets the peer invalidate the regions it lends
 *     (Send with Invalidate, §4.1); used only when both sides set it
 * @param sendWindow messages one {@code send(Publisher)} keeps requested from its publisher and not yet sent:
 *     queued for credit, packed into Sends, or on the wire. It must cover the messages that leave between a
 *     credit grant and the next (at 64 octets, 4096 keep a loopback stream busy); 1 to 1048576
 * @param sendWindowBytes octets of those messages at most: a {@code send} asks for more only below this,
 *     so large messages are not requested by the thousand; at least the inline size
 * @param maxQueuedOperations per session, the most Writes and Reads waiting for room in the send queue, and the most
 *     requests awaiting their response; one more fails at once with an error that says so (1 to 2^20)
 */
public record MessagingOptions(int inlineSize, long maxMessageSize, boolean remoteInvalidation, int sendWindow,
        long sendWindowBytes, int maxQueuedOperations) {
    /** 4 KiB Sends, 16 MiB messages, remote invalidation allowed, a send window of 4096 messages or 1 MiB. */
    public static final MessagingOptions DEFAULTS = new MessagingOptions(4096, 16L * 1024 * 1024, true, 4096,
            1024 * 1024, 65536);

    /** The largest {@link #sendWindow()}. */
    public static final int MAX_SEND_WINDOW = 1 << 20;

    public MessagingOptions {
        RpcRdmaPrivateData.of(remoteInvalidation, inlineSize, inlineSize); // validates the size, naming the rule
        if (maxMessageSize < inlineSize || maxMessageSize > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("maxMessageSize " + maxMessageSize + " must be from the inline size "
                    + inlineSize + " to " + (Integer.MAX_VALUE - 8) + " octets");
        }
        if (sendWindow < 1 || sendWindow > MAX_SEND_WINDOW) {
            throw new IllegalArgumentException("sendWindow " + sendWindow + " must be from 1 to " + MAX_SEND_WINDOW
                    + " messages");
        }
        if (maxQueuedOperations < 1 || maxQueuedOperations > MAX_SEND_WINDOW) {
            throw new IllegalArgumentException("maxQueuedOperations " + maxQueuedOperations + " must be from 1 to "
                    + MAX_SEND_WINDOW);
        }
        if (sendWindowBytes < inlineSize) {
            throw new IllegalArgumentException("sendWindowBytes " + sendWindowBytes
                    + " must be at least the inline size, " + inlineSize + " octets");
        }
    }

    /**
     * These options with another inline size (and the largest message raised to it if smaller).
     *
     * @param size octets, 1024 to 262144, a multiple of 1024
     * @return the new options
     */
    public MessagingOptions withInlineSize(int size) {
        return new MessagingOptions(size, Math.max(size, maxMessageSize), remoteInvalidation, sendWindow,
                Math.max(size, sendWindowBytes), maxQueuedOperations);
    }

    /**
     * These options with another largest message.
     *
     * @param size octets
     * @return the new options
     */
    public MessagingOptions withMaxMessageSize(long size) {
        return new MessagingOptions(inlineSize, size, remoteInvalidation, sendWindow, sendWindowBytes,
                maxQueuedOperations);
    }

    /**
     * These options with remote invalidation allowed or not.
     *
     * @param allowed RFC 8797's R flag
     * @return the new options
     */
    public MessagingOptions withRemoteInvalidation(boolean allowed) {
        return new MessagingOptions(inlineSize, maxMessageSize, allowed, sendWindow, sendWindowBytes,
                maxQueuedOperations);
    }

    /**
     * These options with another bound on queued Writes, Reads and requests.
     *
     * @param max operations per session
     * @return the new options
     */
    public MessagingOptions withMaxQueuedOperations(int max) {
        return new MessagingOptions(inlineSize, maxMessageSize, remoteInvalidation, sendWindow, sendWindowBytes, max);
    }

    /**
     * These options with another send window.
     *
     * @param messages messages requested and not yet sent, per {@code send}
     * @param bytes their octets at most
     * @return the new options
     */
    public MessagingOptions withSendWindow(int messages, long bytes) {
        return new MessagingOptions(inlineSize, maxMessageSize, remoteInvalidation, messages, bytes,
                maxQueuedOperations);
    }
}
