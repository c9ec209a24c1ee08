package io.softrdma.cm;

import io.netty.channel.Channel;
import java.net.InetSocketAddress;

/**
 * A bound listening socket that takes RDMAP connections.
 *
 * <p>Thread safety: all methods may be called from any thread.
 */
public final class RdmaListener implements AutoCloseable {
    private final Channel channel;
    private final StartupLimiter limiter;

    RdmaListener(Channel channel, StartupLimiter limiter) {
        this.channel = channel;
        this.limiter = limiter;
    }

    /**
     * The cap on MPA startups this listener runs at once, with its counts.
     *
     * @return the limiter
     */
    public StartupLimiter startups() {
        return limiter;
    }

    public InetSocketAddress localAddress() {
        return (InetSocketAddress) channel.localAddress();
    }

    /** The port bound, useful after listening on port 0. */
    public int port() {
        return localAddress().getPort();
    }

    /** Stops listening; established connections are not affected. */
    @Override
    public void close() {
        channel.close().syncUninterruptibly();
    }
}
