package io.softrdma.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.ChannelOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A connection reset or closed under load (RFC 5040 §6.2: a stream lost mid-transfer): with hundreds of Sends,
 * Writes, Reads and receives posted on both sides, every work request completes exactly once — successfully
 * before the loss, flushed or failed after — and nothing more arrives; buffers are released (the leak detector
 * at PARANOID), no thread is left stuck, and the same endpoints can connect again.
 */
class ConnectionFaultTest {
    private static final int EACH = 150;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"client resets", "server resets", "server closes"})
    void everyPostedWorkRequestCompletesExactlyOnceWhenTheStreamIsLost(String fault) throws Exception {
        Map<Long, Integer> clientSeen = new HashMap<>();
        Map<Long, Integer> serverSeen = new HashMap<>();
        int clientPosted;
        int serverPosted;
        try (Loopback lb = new Loopback(io.softrdma.mpa.MpaSettings.defaults(),
                c -> c.withSendQueueDepth(1024).withReceiveQueueDepth(1024),
                c -> c.withSendQueueDepth(1024).withReceiveQueueDepth(1024))) {
            MemoryRegion target = lb.server.allocate(1 << 20, Access.LOCAL_WRITE, Access.REMOTE_WRITE,
                    Access.REMOTE_READ);
            MemoryRegion src = lb.client.allocate(1 << 20, Access.LOCAL_WRITE);
            MemoryRegion sink = lb.client.allocate(1 << 20, Access.LOCAL_WRITE);
            MemoryRegion serverRecv = lb.server.allocate(EACH * 4096, Access.LOCAL_WRITE);
            MemoryRegion clientRecv = lb.client.allocate(EACH * 4096, Access.LOCAL_WRITE);
            long id = 1;
            for (int i = 0; i < EACH; i++) {
                lb.server.qp.postReceive(ReceiveWorkRequest.of(1_000_000 + i,
                        new ScatterGatherEntry(serverRecv, i * 4096L, 4096)));
                lb.client.qp.postReceive(ReceiveWorkRequest.of(2_000_000 + i,
                        new ScatterGatherEntry(clientRecv, i * 4096L, 4096)));
            }
            for (int i = 0; i < EACH; i++) {
                lb.client.qp.postSend(SendWorkRequest.write(id++, target.advertise().slice((i % 16) * 65536L, 65536),
                        new ScatterGatherEntry(src, (i % 16) * 65536L, 65536)));
                lb.client.qp.postSend(SendWorkRequest.read(id++, new ScatterGatherEntry(sink, (i % 16) * 65536L, 65536),
                        target.advertise().slice((i % 16) * 65536L, 65536)));
                lb.client.qp.postSend(SendWorkRequest.send(id++, new ScatterGatherEntry(src, 0, 4096)));
            }
            clientPosted = 3 * EACH + EACH;
            serverPosted = EACH;
            // Lose the stream while most of that is in flight.
            switch (fault) {
                case "client resets" -> reset(lb.client.connection.channel());
                case "server resets" -> reset(lb.server.connection.channel());
                default -> lb.server.connection.channel().close();
            }
            drain(lb.client, clientSeen, clientPosted);
            drain(lb.server, serverSeen, serverPosted);
            assertThat(clientSeen).as("client completions, by work request id").hasSize(clientPosted)
                    .allSatisfy((wr, n) -> assertThat(n).as("completions of %d", wr).isEqualTo(1));
            assertThat(serverSeen).as("server completions").hasSize(serverPosted)
                    .allSatisfy((wr, n) -> assertThat(n).isEqualTo(1));
            // Nothing else comes: a queue pair's close future completes after it flushed everything outstanding.
            for (Loopback.Side side : new Loopback.Side[] {lb.client, lb.server}) {
                side.qp.closeFuture().handle((v, e) -> null).get(5, java.util.concurrent.TimeUnit.SECONDS);
                assertThat(side.cq.size()).as("completions beyond one per work request").isZero();
            }
            assertThat(lb.client.qp.state()).isEqualTo(QueuePairState.ERROR);
            assertThat(lb.server.qp.state()).isEqualTo(QueuePairState.ERROR);
            for (MemoryRegion r : new MemoryRegion[] {target, src, sink, serverRecv, clientRecv}) {
                r.close();
            }
        }
        // The same kind of endpoints connect again and work.
        try (Loopback again = new Loopback()) {
            MemoryRegion recv = again.server.allocate(64, Access.LOCAL_WRITE);
            again.server.qp.postReceive(ReceiveWorkRequest.of(1, ScatterGatherEntry.of(recv)));
            MemoryRegion src = again.client.allocate(64, Access.LOCAL_WRITE);
            again.client.qp.postSend(SendWorkRequest.send(2, ScatterGatherEntry.of(src)));
            again.client.nextSuccess();
            again.server.nextSuccess();
            recv.close();
            src.close();
        }
    }

    private static void reset(io.netty.channel.Channel ch) {
        ch.config().setOption(ChannelOption.SO_LINGER, 0); // close sends RST instead of FIN
        ch.close();
    }

    private static void drain(Loopback.Side side, Map<Long, Integer> seen, int expected) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        int total = 0;
        while (total < expected && System.nanoTime() < deadline) {
            WorkCompletion c = side.cq.take(Duration.ofMillis(500));
            if (c != null) {
                seen.merge(c.wrId(), 1, Integer::sum);
                total++;
            }
        }
    }
}
