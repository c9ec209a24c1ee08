package io.softrdma.rsocket;

import io.rsocket.test.TransportTest;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;

/**
 * RSocket's own transport test kit (rsocket-test 1.1.5's {@link TransportTest}: every interaction model, large
 * payloads, 200,000-frame channels, concurrent channels, delayed REQUEST_N, and the kit's leak check of every frame
 * RSocket allocated) over {@link RdmaClientTransport} and {@link RdmaServerTransport}, as rsocket-transport-netty's
 * {@code TcpTransportTest} runs it over TCP. The kit wraps either side at random in an interceptor that moves
 * receiving to another thread, so both the event-loop and the off-loop paths run.
 */
final class RdmaTransportTest implements RdmaKit {
    private TransportPair<InetSocketAddress, KitTransports.KitServer> transportPair;

    @BeforeEach
    void createTestPair() {
        transportPair = new TransportPair<>(KitTransports::anyPort, (address, server, allocator) ->
                KitTransports.client(server, allocator), KitTransports::server);
    }

    @Override
    public Duration getTimeout() {
        return Duration.ofMinutes(2); // as rsocket-transport-netty's TcpTransportTest
    }

    @Override
    public TransportPair getTransportPair() {
        return transportPair;
    }


}
