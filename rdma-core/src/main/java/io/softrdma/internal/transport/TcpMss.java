package io.softrdma.internal.transport;

import io.netty.channel.Channel;
import io.netty.channel.epoll.EpollSocketChannel;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.net.SocketException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The effective maximum segment size (EMSS) of a connected TCP channel, which MPA turns into the
 * MULPDU it offers DDP (RFC 5044 §4.5, §5.1).
 *
 * <p>With native epoll the kernel reports it ({@code TCP_INFO tcpi_snd_mss}). Otherwise, as RFC 5044
 * §5.1 advises, it is derived from the MTU of the local interface minus the IP and TCP headers and
 * the TCP timestamp option.
 *
 * <p>Thread safety: stateless; call it on the channel's event loop (it queries the socket).
 */
public final class TcpMss {
    /** Used when nothing better is known: Ethernet's 1500-octet MTU less IPv4 and TCP headers. */
    public static final int DEFAULT_EMSS = 1460;

    private static final int IPV4_HEADER = 20;
    private static final int IPV6_HEADER = 40;
    private static final int TCP_HEADER = 20;
    /** The timestamp option Linux sends on every segment (10 octets padded to 12). */
    private static final int TCP_TIMESTAMPS = 12;

    /** Interface lookups list every interface: resolve each local address once, not per connection. */
    private static final ConcurrentMap<InetAddress, Integer> FROM_MTU = new ConcurrentHashMap<>();

    private TcpMss() {
    }

    /** The EMSS of a connected channel, in octets. */
    public static int effectiveMss(Channel channel) {
        if (channel instanceof EpollSocketChannel epoll && epoll.isActive()) {
            try {
                long mss = epoll.tcpInfo().sndMss();
                if (mss > 0) {
                    return (int) mss;
                }
            } catch (RuntimeException e) {
                // fall back to the MTU
            }
        }
        return fromMtu(channel.localAddress());
    }

    static int fromMtu(SocketAddress local) {
        if (!(local instanceof InetSocketAddress inet) || inet.getAddress() == null) {
            return DEFAULT_EMSS;
        }
        return FROM_MTU.computeIfAbsent(inet.getAddress(), TcpMss::lookup);
    }

    private static int lookup(InetAddress address) {
        try {
            NetworkInterface nif = NetworkInterface.getByInetAddress(address);
            if (nif == null || nif.getMTU() <= 0) {
                return DEFAULT_EMSS;
            }
            int ipHeader = address instanceof Inet6Address ? IPV6_HEADER : IPV4_HEADER;
            return nif.getMTU() - ipHeader - TCP_HEADER - TCP_TIMESTAMPS;
        } catch (SocketException e) {
            return DEFAULT_EMSS;
        }
    }
}
