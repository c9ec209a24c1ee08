package io.softrdma.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.ChannelOption;
import io.softrdma.ConnectionClosedException;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * How an RTS stream ended without a Terminate, as its queue pairs report it (RFC 5040 §6.2): RFC 5044 §7.2 asks MPA
 * to tell its consumer that a graceful close (a FIN) was received, and §8 code 1 names a lost connection (a reset, a
 * timeout). Each end's close future says which it saw, and the end that closed its own channel says so. Idle
 * connections, so that no unread data turns a close into a reset.
 */
class ConnectionEndingTest {

    @Test
    void aPeersFinIsReportedAsItsGracefulCloseRfc5044Section7_2() throws Exception {
        try (Loopback lb = new Loopback()) {
            lb.server.connection.channel().close();
            assertThat(failure(lb.client.qp)).hasMessageContaining("the peer closed the TCP connection (a FIN")
                    .hasMessageContaining("closed without a Terminate").hasNoCause();
            assertThat(failure(lb.server.qp)).hasMessageContaining("its channel was closed on this side");
        }
    }

    @Test
    void aResetIsReportedAsALostConnectionRfc5044Section8Code1() throws Exception {
        try (Loopback lb = new Loopback()) {
            lb.server.connection.channel().config().setOption(ChannelOption.SO_LINGER, 0); // close sends RST
            lb.server.connection.channel().close();
            assertThat(failure(lb.client.qp)).hasMessageContaining("the TCP connection failed (RFC 5044 §8 code 1")
                    .hasCauseInstanceOf(IOException.class);
            assertThat(failure(lb.server.qp)).hasMessageContaining("its channel was closed on this side");
        }
    }

    @Test
    void theQueuePairsOwnCloseEndsWithoutAnErrorAndThePeerSeesItsFin() throws Exception {
        try (Loopback lb = new Loopback()) {
            lb.client.qp.close();
            lb.client.qp.closeFuture().get(10, TimeUnit.SECONDS);
            assertThat(failure(lb.server.qp)).hasMessageContaining("the peer closed the TCP connection (a FIN");
        }
    }

    private static Throwable failure(QueuePair qp) throws Exception {
        CompletableFuture<Throwable> outcome = qp.closeFuture().handle((v, e) -> e);
        Throwable t = outcome.get(10, TimeUnit.SECONDS);
        if (t instanceof java.util.concurrent.CompletionException c) {
            t = c.getCause();
        }
        assertThat(t).as("how %s ended", qp).isInstanceOf(ConnectionClosedException.class);
        return t;
    }
}
