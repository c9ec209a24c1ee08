package io.softrdma.reactive;

import io.softrdma.cm.RdmaPipeline;
import reactor.netty.tcp.TcpClient;
import reactor.netty.tcp.TcpServer;

/**
 * Puts SoftRDMA's channel options ({@link RdmaPipeline#applyOptions}: TCP_NODELAY, the pooled allocator, 64 KiB
 * reads, the write water mark) on a reactor-netty client, or on each connection of a reactor-netty server: the
 * same list as {@link io.softrdma.cm.ConnectionManager}'s channels.
 */
final class TcpOptions {
    private TcpOptions() {
    }

    static TcpClient apply(TcpClient tcp) {
        TcpClient[] t = {tcp};
        RdmaPipeline.applyOptions((option, value) -> t[0] = t[0].option(option, value));
        return t[0];
    }

    static TcpServer apply(TcpServer tcp) {
        TcpServer[] t = {tcp};
        RdmaPipeline.applyOptions((option, value) -> t[0] = t[0].childOption(option, value));
        return t[0];
    }
}
