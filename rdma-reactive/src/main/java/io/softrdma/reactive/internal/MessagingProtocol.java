package io.softrdma.reactive.internal;

import io.softrdma.cm.RpcRdmaPrivateData;
import io.softrdma.reactive.MessagingOptions;
import io.softrdma.reactive.ReceivePool;
import io.softrdma.reactive.spi.SessionProtocol;
import java.util.Arrays;

/**
 * SoftRDMA's messaging with credits (docs/protocol.md) as a session protocol: the default of every session.
 *
 * <p>Thread safety: immutable.
 *
 * @param options sizes and remote invalidation
 * @param receivePool the budget the sessions' receive buffers beyond their dedicated few are drawn from, or null
 *     for every session to register all of its receive buffers when it starts
 */
public record MessagingProtocol(MessagingOptions options, ReceivePool receivePool) implements SessionProtocol {
    /** Messaging with {@code options}, each session registering all its receive buffers when it starts. */
    public MessagingProtocol(MessagingOptions options) {
        this(options, null);
    }

    @Override
    public String name() {
        return "SoftRDMA messaging";
    }

    /** RFC 8797's block first (where Linux looks for it), then the application's private data. */
    @Override
    public byte[] privateData(byte[] applicationData) {
        byte[] block = RpcRdmaPrivateData.of(options.remoteInvalidation(), options.inlineSize(), options.inlineSize())
                .encode();
        byte[] r = Arrays.copyOf(block, block.length + applicationData.length);
        System.arraycopy(applicationData, 0, r, block.length, applicationData.length);
        return r;
    }

    @Override
    public Engine start(Context context) {
        return new MessagingEngine(context, options, receivePool);
    }
}
