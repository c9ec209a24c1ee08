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
 */
public record MessagingOptions(int inlineSize, long maxMessageSize, boolean remoteInvalidation) {
    /** 4 KiB Sends, 16 MiB messages, remote invalidation allowed. */
    public static final MessagingOptions DEFAULTS = new MessagingOptions(4096, 16L * 1024 * 1024, true);

    public MessagingOptions {
        RpcRdmaPrivateData.of(remoteInvalidation, inlineSize, inlineSize); // validates the size, naming the rule
        if (maxMessageSize < inlineSize || maxMessageSize > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("maxMessageSize " + maxMessageSize + " must be from the inline size "
                    + inlineSize + " to " + (Integer.MAX_VALUE - 8) + " octets");
        }
    }

    public MessagingOptions withInlineSize(int size) {
        return new MessagingOptions(size, Math.max(size, maxMessageSize), remoteInvalidation);
    }

    public MessagingOptions withMaxMessageSize(long size) {
        return new MessagingOptions(inlineSize, size, remoteInvalidation);
    }

    public MessagingOptions withRemoteInvalidation(boolean allowed) {
        return new MessagingOptions(inlineSize, maxMessageSize, allowed);
    }

    /** RFC 8797's block first (where Linux looks for it), then the application's private data. */
    byte[] privateData(byte[] applicationData) {
        byte[] block = RpcRdmaPrivateData.of(remoteInvalidation, inlineSize, inlineSize).encode();
        byte[] r = java.util.Arrays.copyOf(block, block.length + applicationData.length);
        System.arraycopy(applicationData, 0, r, block.length, applicationData.length);
        return r;
    }
}
