package io.softrdma.rsocket;

import io.rsocket.test.TransportTest;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * RSocket's transport test kit with resumption (RSocket protocol, "Resuming Operation"): the kit's
 * {@code DisconnectingDuplexConnection} disposes each RDMA connection of either side 10 ms to 1.5 s after its first
 * frame, and every interaction must still complete, the frames lost with each connection replayed over the next one
 * from the kit's {@code InMemoryResumableFramesStore}; as rsocket-transport-netty's {@code TcpResumableTransportTest}.
 */
final class RdmaResumableTransportTest implements RdmaKit {
    private TransportPair<InetSocketAddress, KitTransports.KitServer> transportPair;

    @BeforeEach
    void createTestPair() {
        transportPair = new TransportPair<>(KitTransports::anyPort, (address, server, allocator) ->
                KitTransports.client(server, allocator), KitTransports::server, false, true);
    }

    @Override
    public Duration getTimeout() {
        return Duration.ofMinutes(3); // as rsocket-transport-netty's TcpResumableTransportTest
    }

    @Override
    public TransportPair getTransportPair() {
        return transportPair;
    }



    @Override
    @Test
    @DisplayName("makes 10,000 requestResponse requests")
    @EnabledIfSystemProperty(named = HeavyKitTests.PROPERTY, matches = "true",
            disabledReason = HeavyKitTests.RESUMED_10_000)
    public void requestResponse10_000() {
        RdmaKit.super.requestResponse10_000();
    }

    @Override
    @Test
    @DisplayName("makes 1 requestStream request and receives 10,000 responses")
    @EnabledIfSystemProperty(named = HeavyKitTests.PROPERTY, matches = "true",
            disabledReason = HeavyKitTests.RESUMED_10_000)
    public void requestStream10_000() {
        RdmaKit.super.requestStream10_000();
    }
}
