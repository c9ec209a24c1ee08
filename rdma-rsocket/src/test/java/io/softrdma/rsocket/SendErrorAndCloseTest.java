package io.softrdma.rsocket;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoop;
import io.rsocket.DuplexConnection;
import io.rsocket.exceptions.ConnectionErrorException;
import io.rsocket.frame.ErrorFrameCodec;
import io.rsocket.frame.FrameHeaderCodec;
import io.rsocket.frame.FrameType;
import io.rsocket.frame.KeepAliveFrameCodec;
import io.softrdma.reactive.RdmaClient;
import io.softrdma.reactive.RdmaServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * {@code DuplexConnection.sendErrorAndClose} at the one moment RSocket 1.1.5's own processor mishandles: when the
 * session's sender has taken every frame it asked for and not yet asked for more (docs/rsocket.md,
 * {@link RdmaDuplexConnection#sendErrorAndClose}). The race is made certain, not waited for: the client's event loop is
 * held while a frame and the ERROR frame are emitted, so the sender's next request can only come after both.
 */
final class SendErrorAndCloseTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    @Test
    void theErrorFrameGoesAndTheConnectionClosesWhenItCameWithNoDemandOutstanding() throws Exception {
        List<String> received = new CopyOnWriteArrayList<>();
        CloseableRdmaServer server = RdmaServerTransport.create(RdmaServer.create().host("127.0.0.1").port(0))
                .start(connection -> {
                    connection.receive().doOnNext(f -> received.add(describe(f))).subscribe(f -> { }, e -> { });
                    return connection.onClose();
                }).block(TIMEOUT);
        try {
            DuplexConnection client = RdmaClientTransport.create(RdmaClient.create().host("127.0.0.1")
                    .port(server.address().getPort())).connect().block(TIMEOUT);
            EventLoop loop = ((RdmaDuplexConnection) client).session().connection().channel().eventLoop();
            CountDownLatch held = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            loop.execute(() -> {
                held.countDown();
                awaitQuietly(release); // a test's own hold of the loop, to order the race; never done by the library
            });
            assertThat(held.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
            // The sender asked for one frame when it subscribed: this one takes it.
            client.sendFrame(0, KeepAliveFrameCodec.encode(ByteBufAllocator.DEFAULT, false, 0, Unpooled.EMPTY_BUFFER));
            client.sendErrorAndClose(new ConnectionErrorException("closing on purpose"));
            release.countDown();

            client.onClose().block(TIMEOUT);
            // After these two, the server's side also reports the connection's end as a CONNECTION_ERROR of its own.
            Awaitility.await().atMost(TIMEOUT).untilAsserted(() ->
                    assertThat(received).startsWith("KEEPALIVE", "ERROR closing on purpose"));
        } finally {
            server.dispose();
        }
    }

    private static String describe(io.netty.buffer.ByteBuf frame) {
        FrameType type = FrameHeaderCodec.frameType(frame);
        return type == FrameType.ERROR ? "ERROR " + ErrorFrameCodec.dataUtf8(frame) : type.name();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
